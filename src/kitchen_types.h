// Rcpp::compileAttributes() includes this header first in RcppExports.cpp,
// before the #include <RcppEigen.h> it writes for the LinkingTo entry.
// RcppEigen is included here as a system header, as kitchen/eigen.hpp does
// for Eigen (see there why); the later #include finds its include guard set.
#pragma once

#if defined(__GNUC__)
#pragma GCC system_header
#endif

#include <RcppEigen.h>
