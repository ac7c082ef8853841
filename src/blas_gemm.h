// R's own BLAS for dense products and Gram updates: near peak when R is linked to an
// optimised BLAS (OpenBLAS, MKL, Accelerate), slow with the reference BLAS,
// where the Eigen path of the core is used instead (see R/backends.R).
#pragma once

#ifndef USE_FC_LEN_T
#define USE_FC_LEN_T
#endif
#include <Rconfig.h>
#include <R_ext/BLAS.h>
#ifndef FCONE
#define FCONE
#endif

namespace kitchen_glue {

// C = A B with column-major A (m x k, leading dimension lda), B (k x n), C (m x n).
inline void blas_gemm(int m, int n, int k, const double* a, int lda, const double* b, int ldb,
                      double* c, int ldc) {
  const char no = 'N';
  const double one = 1.0, zero = 0.0;
  F77_CALL(dgemm)(&no, &no, &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc FCONE FCONE);
}

// Upper triangle of C += A'A with A (k x n, leading dimension lda), C (n x n).
inline void blas_syrk_upper(int n, int k, const double* a, int lda, double* c, int ldc) {
  const char upper = 'U', trans = 'T';
  const double one = 1.0;
  F77_CALL(dsyrk)(&upper, &trans, &n, &k, &one, a, &lda, &one, c, &ldc FCONE FCONE);
}

}  // namespace kitchen_glue
