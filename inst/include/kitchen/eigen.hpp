// Eigen's dense module, for the core headers that use it: include this, not
// <Eigen/Dense>. Eigen is a third-party library, and GCC and clang report
// about 50 -Wignored-attributes warnings per file from inside it (its SIMD
// packet types as template arguments), which would bury kitchen's own. This
// header declares itself a system header, the status Eigen would have if it
// were installed under /usr/include: diagnostics located in Eigen's files are
// not shown, those in kitchen's code are. R CMD check refuses the other ways:
// a "diagnostic ignored" pragma (a NOTE under --as-cran) and -isystem (a
// non-portable flag).
#pragma once

#if defined(__GNUC__)
#pragma GCC system_header
#endif

#include <Eigen/Dense>
