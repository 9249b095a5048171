/* JUnit XML of a run's test records, as Jenkins and GitLab read it (there is no official schema;
 * REFERENCE "JUnit XML in practice"):
 *
 *   <?xml version="1.0" encoding="UTF-8"?>
 *   <testsuites name="torq-test" tests= failures= errors= skipped= time=>
 *     <testsuite name=SUITE tests= failures= errors= skipped= time= timestamp= hostname=>
 *       <testcase classname=SUITE name=NAME time=WALL-OR-DURATION>
 *         <properties> wall_time, wall_time_{min,median,mean,stddev,mad,ci95_low,ci95_high},
 *                      outcome, cache, compile_time, run_time, the overview metrics (µs),
 *                      then the record's own properties </properties>
 *         <failure message type>text</failure> | <error ...> | <skipped message type/>
 *         <system-out> key figures, then [[ATTACHMENT|/abs/path]] per file </system-out>
 *       </testcase> ...
 *
 * One <testsuite> per classname, in order of first appearance; test cases in record order.
 * failures = FAILED, errors = ERROR, skipped = SKIPPED + XFAILED + NOT_RUN; time attributes in
 * seconds with 6 decimals, the time properties in seconds with 9 (simulator runs take µs),
 * overview metrics in µs as recorded; system-out and the failure message show durations as
 * overview.h formats them ("207.123ms"). The testcase time is the test's duration; timestamp
 * is the earliest start of the
 * suite's tests (UTC, "2026-12-02T14:55:01", as the old Ant schema wants). Text is escaped for
 * XML 1.0: & < > " ' as entities, tab/newline/CR kept (as &#9; &#10; &#13; in attributes), other
 * C0 controls, DEL, U+FFFE/U+FFFF and malformed UTF-8 replaced by U+FFFD.
 *
 * Part of the results component (harness/src/results/README.md).
 */
#ifndef TORQ_HARNESS_JUNIT_H
#define TORQ_HARNESS_JUNIT_H

#include <stddef.h>

#include "torq/base/status.h"
#include "torq/base/str.h"
#include "torq/harness/results.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tqh_junit_options_s {
  const char *name;     /* <testsuites name>; default "torq-test" */
  const char *hostname; /* for records without a host; default "localhost" */
  const char *run_dir;  /* absolute run folder: attachments are RUN_DIR/<id>/<file>; NULL: no
                         * attachment lines */
} tqh_junit_options_t;

void tqh_junit_options_initialize(tqh_junit_options_t *options);

/* Appends the JUnit XML document of `count` records to `out`. Records and options are borrowed
 * for the call. Errors: TQ_OUT_OF_MEMORY (or TQ_LIMIT from the buffer's limit). */
tq_status_t tqh_junit_render(const tqh_test_record_t *records, size_t count,
                             const tqh_junit_options_t *options, tq_buf_t *out) TQ_MUST_USE;

/* Appends `len` bytes of `text` escaped for XML 1.0 character data (`attribute` = 0) or a
 * double-quoted attribute value (`attribute` = 1), as described above. */
tq_status_t tqh_xml_escape(const char *text, size_t len, int attribute, tq_buf_t *out) TQ_MUST_USE;

#ifdef __cplusplus
}
#endif
#endif
