// libFuzzer's entry point for programs that have a main of their own (LLVM 12 and later). The
// fuzz targets link libclang_rt.fuzzer_no_main, whose only public function this is.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
