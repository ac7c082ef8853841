// Clipping new rows to a map's training range (R/clip.R), in one pass:
// most rows are inside, and then x itself is returned, with no copy.
#include <Rcpp.h>

#include <cstddef>

// x: dense double matrix (n x d); low, high: d doubles (low <= high, checked
// by clip_problem()). Returns x when every entry is inside, else a copy with
// each entry v outside set to low or high, as pmin(pmax(v, low), high).
// [[Rcpp::export(rng = false)]]
SEXP clip_columns_cpp(SEXP x, SEXP low, SEXP high) {
  if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x)) Rcpp::stop("x must be a double matrix.");
  const std::size_t n = Rf_nrows(x), d = Rf_ncols(x);
  if (TYPEOF(low) != REALSXP || TYPEOF(high) != REALSXP ||
      static_cast<std::size_t>(XLENGTH(low)) != d || static_cast<std::size_t>(XLENGTH(high)) != d) {
    Rcpp::stop("low and high must hold one double per column of x.");
  }
  const double* lo = REAL(low);
  const double* hi = REAL(high);
  const double* v = REAL(x);
  std::size_t j = 0, i = 0;
  bool outside = false;
  for (; j < d && !outside; ++j) {
    const double* column = v + j * n;
    for (i = 0; i < n; ++i) {
      if (column[i] < lo[j] || column[i] > hi[j]) {
        outside = true;
        break;
      }
    }
  }
  if (!outside) return x;
  Rcpp::Shield<SEXP> out(Rf_duplicate(x));
  double* w = REAL(out);
  for (std::size_t c = 0; c < d; ++c) {
    double* column = w + c * n;
    for (std::size_t r = 0; r < n; ++r) {
      double value = column[r];
      if (lo[c] > value) value = lo[c];
      if (hi[c] < value) value = hi[c];
      column[r] = value;
    }
  }
  return out;
}
