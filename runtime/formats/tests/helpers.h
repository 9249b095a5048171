/* The libtorq-formats tests: one suite per contract header. */
#ifndef TORQ_FORMATS_TESTS_HELPERS_H
#define TORQ_FORMATS_TESTS_HELPERS_H

#include <check.h>

Suite *module_suite(void);
Suite *element_suite(void);
Suite *contract_suite(void);

#endif
