/*
 * Test set-up only, never shipped: Wine 8 has no bcryptprimitives.dll, whose
 * ProcessPrng Rust's standard library calls for random bytes on Windows 10+.
 * `cargo xtask windows test` compiles this into bcryptprimitives.dll in its
 * private Wine prefix; it answers with advapi32's RtlGenRandom
 * (SystemFunction036), which Wine has.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
