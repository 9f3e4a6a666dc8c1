#pragma once

namespace vigil::test {

// True in the AddressSanitizer + UndefinedBehaviorSanitizer build, where the engine runs about
// ten times slower. That build looks for memory errors and undefined behaviour, which a few
// thousand iterations exercise as well as tens of thousands; the statistical claims themselves
// are checked at full size in the ordinary build. A test that shrinks under the sanitizers keeps
// its bound derived from the sample it actually draws.
#ifdef VIGIL_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace vigil::test
