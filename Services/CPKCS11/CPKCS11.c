// Loading a PKCS#11 module: dlopen, C_GetFunctionList, C_Initialize. See include/CPKCS11.h.
#include "CPKCS11.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

ck_rv_t securepush_pkcs11_load(
    const char *path, struct ck_function_list **functions, void **library, char *error, size_t error_size) {
    *functions = NULL;
    *library = NULL;
    if (error_size > 0) {
        error[0] = '\0';
    }

    // RTLD_NOW: a module missing a symbol it needs fails here, at start-up, not at its first signature.
    // RTLD_LOCAL: the module's own dependencies (SoftHSM's OpenSSL, say) never stand in for symbols of ours.
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "%s", reason != NULL ? reason : "dlopen failed");
        return CKR_GENERAL_ERROR;
    }

    // The one symbol every module exports; all others are reached through the list it returns.
    CK_C_GetFunctionList get_function_list = (CK_C_GetFunctionList)dlsym(handle, "C_GetFunctionList");
    if (get_function_list == NULL) {
        snprintf(error, error_size, "it has no C_GetFunctionList: not a PKCS#11 module");
        dlclose(handle);
        return CKR_GENERAL_ERROR;
    }
    struct ck_function_list *list = NULL;
    ck_rv_t rv = get_function_list(&list);
    if (rv != CKR_OK) {
        dlclose(handle);
        return rv;
    }
    if (list == NULL || list->C_Initialize == NULL) {
        snprintf(error, error_size, "C_GetFunctionList returned no C_Initialize");
        dlclose(handle);
        return CKR_GENERAL_ERROR;
    }

    // No mutex callbacks and CKF_OS_LOCKING_OK: the module locks with the OS's own primitives (PKCS#11 2.40, 11.4).
    struct ck_c_initialize_args args;
    memset(&args, 0, sizeof args);
    args.flags = CKF_OS_LOCKING_OK;
    rv = list->C_Initialize(&args);
    if (rv != CKR_OK && rv != CKR_CRYPTOKI_ALREADY_INITIALIZED) {
        // Not dlclose'd: a module that failed half-way through initialising may have started threads of its own.
        return rv;
    }

    *functions = list;
    *library = handle;
    return CKR_OK;
}
