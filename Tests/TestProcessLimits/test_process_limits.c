// The test bundle runs the whole suite in one process: hundreds of in-process services, databases, sockets and
// child processes at once, about 1,000 open files at the peak on two cores (sampled) and more with more cores. Many
// systems start a shell with a soft limit of 1,024 open files (the hard limit is usually far higher), where the
// suite would fail with EMFILE. Like Go's runtime, the test process raises its own soft limit to the hard limit
// before any test runs. It changes nothing outside this process and its children; the services do not do this.
#include <sys/resource.h>

#include "TestProcessLimits.h"

static unsigned long raised_limit = 0;

__attribute__((constructor)) static void securepush_raise_open_file_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
    if (limit.rlim_cur < limit.rlim_max) {
        struct rlimit raised = {limit.rlim_max, limit.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    raised_limit = (unsigned long)limit.rlim_cur;
}

unsigned long securepush_test_open_file_limit(void) { return raised_limit; }

// Swift Testing starts every test of the suite at once (~800 here). On two cores the first ~20 seconds are then one
// queue of jobs on the two cooperative threads, and a test that waits a few seconds for a timer, a peer or a child
// process (the WakeUpSignal and HTTP/2 client tests, a graceful-shutdown probe) measures that queue and fails: the
// whole suite failed 16–24 tests a run on a slower machine of this kind, every test passing alone. Bounded at
// 8 tests per core in flight, the suite passes there in about the same wall time (74 s; 111 s with PostgreSQL, whose
// replica test is the long pole); at 12 per core one PostgreSQL run still timed out a call. Set before the test
// runner reads its environment; an explicit SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH wins.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long parallelization_width = 0;

// Only in a test bundle (`….xctest`): other programs link this target too (securepush-bench, through TestSupport), and
// in a statically linked one, changing the environment this early lost the program's arguments (Swift read none).
// glibc passes constructors the program's argc, argv and envp.
__attribute__((constructor)) static void securepush_bound_test_parallelism(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc < 1 || argv == NULL || argv[0] == NULL || strstr(argv[0], ".xctest") == NULL) return;
    const char *name = "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH";
    const char *given = getenv(name);
    if (given != NULL && given[0] != '\0') {
        parallelization_width = strtol(given, NULL, 10);
        return;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    parallelization_width = 8 * (cores > 0 ? cores : 1);
    char value[32];
    snprintf(value, sizeof value, "%ld", parallelization_width);
    setenv(name, value, 0);
}

long securepush_test_parallelization_width(void) { return parallelization_width; }
