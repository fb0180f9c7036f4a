#pragma once
// Ranges for numbers the judge reads from user input (problem specs, packs, task.yml). A value
// outside them is an InputError naming file, line and field, not a value that overflows later.

namespace kjudge {

// The longest timeout a problem or task may ask for. Timeouts become integer seconds and clock
// deadlines downstream (1e308 once printed as -2147483648 s); a day is far beyond any real test.
inline constexpr double kMaxTimeoutSeconds = 86400;

}  // namespace kjudge
