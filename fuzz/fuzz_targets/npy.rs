#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| sota::fuzzing::npy(data));
