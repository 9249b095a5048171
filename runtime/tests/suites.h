/* The runtime test suites, one per file. */
#ifndef TORQ_RUNTIME_TESTS_SUITES_H
#define TORQ_RUNTIME_TESTS_SUITES_H

#include <check.h>

Suite *input_suite(void);
Suite *tensor_suite(void);
Suite *npy_suite(void);
Suite *module_suite(void);
Suite *robust_suite(void);
Suite *session_suite(void);
Suite *profile_suite(void);
Suite *tool_suite(void);
Suite *corpus_e2e_suite(void);
Suite *oracle_suite(void);
Suite *host_linalg_suite(void);

#endif
