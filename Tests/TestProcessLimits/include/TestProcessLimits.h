#ifndef SECUREPUSH_TEST_PROCESS_LIMITS_H
#define SECUREPUSH_TEST_PROCESS_LIMITS_H

/// The test process's soft limit on open files, as raised when the process started (0 if it could not be read).
/// Swift code need not call anything: linking this target is enough (see test_process_limits.c).
unsigned long securepush_test_open_file_limit(void);

/// How many tests Swift Testing runs at once in this process (`SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH`, set
/// to 8 per core when the environment does not say; see test_process_limits.c).
long securepush_test_parallelization_width(void);

#endif
