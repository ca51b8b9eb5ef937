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
