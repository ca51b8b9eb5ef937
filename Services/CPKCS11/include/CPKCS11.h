// PKCS#11 (OASIS Cryptoki v2.40) for the PKCS11 target, through Debian's libp11-kit-dev header
// (/usr/include/p11-kit-1/p11-kit/pkcs11.h, found with -I in Package.swift; p11-kit itself is not linked).
//
// The boundary is one function: loading a module. Everything after that goes through the module's own function list
// (`struct ck_function_list`), called from Swift, so this file never sees a key, a PIN or a signature.
#ifndef SECUREPUSH_CPKCS11_H
#define SECUREPUSH_CPKCS11_H

#include <stddef.h>
// The header's own names (ck_rv_t, struct ck_function_list, iv_ptr…) rather than the specification's macros
// (CK_RV, CK_FUNCTION_LIST, pIv…): real types and fields, which Swift imports (it cannot import a type macro).
#define CRYPTOKI_GNU 1
#include <p11-kit/pkcs11.h>

/// Loads the PKCS#11 module at `path` (a shared object such as SoftHSM2's libsofthsm2.so) and initialises it for a
/// process with many threads: the module does its own locking with the operating system's primitives
/// (CKF_OS_LOCKING_OK), so sessions may be used from any thread, one operation per session at a time.
///
/// On success returns CKR_OK and sets `*functions` (the module's function list, valid until the process ends) and
/// `*library` (the dlopen handle, never closed: a module stays initialised for the life of the process, as PKCS#11
/// requires one C_Initialize per process however many users it has).
/// A module that was already initialised in this process (CKR_CRYPTOKI_ALREADY_INITIALIZED) is a success.
///
/// When the file cannot be loaded or is not a PKCS#11 module, returns CKR_GENERAL_ERROR and writes the reason
/// (dlopen's message, or what is missing) into `error`, truncated to `error_size` bytes and always NUL-terminated.
/// When C_GetFunctionList or C_Initialize fail, returns their code and leaves `error` empty.
ck_rv_t securepush_pkcs11_load(
    const char *path, struct ck_function_list **functions, void **library, char *error, size_t error_size);

#endif
