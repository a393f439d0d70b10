#pragma once
// ASan's manual poisoning interface (ASAN_POISON_MEMORY_REGION, ASAN_UNPOISON_MEMORY_REGION) when
// the build has AddressSanitizer, under gcc's or clang's spelling of that; otherwise nothing, and
// the users' `#if defined(ASAN_POISON_MEMORY_REGION)` blocks drop out.
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#endif
#endif
