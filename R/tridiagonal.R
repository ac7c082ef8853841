# The option `kitchen.tridiagonal` ("auto", "kitchen" or "lapack"): which
# code reduces the centred Z'Z to tridiagonal form for lambda = "gcv" and
# "cv" (ridge_path.cpp), and nystrom()'s K_CC^(-1/2) (inverse_root.cpp;
# "lapack" there means R's eigen()). "kitchen" is kitchen's blocked reduction
# (tridiagonal.hpp: threads, AVX-512 / AVX2 kernels), "lapack" R's LAPACK
# dsytrd on R's BLAS. With "auto", kitchen's, except when SIMD is
# unavailable or switched off and R's BLAS is an optimised one: with
# AVX-512 it ran 1.2-1.8 times as fast as OpenBLAS 0.3.21's dsytrd at D =
# 512-4096 on 2 threads and 4.6-5.6 times as fast as the reference BLAS's,
# but without SIMD 1.7-2.4 times slower than OpenBLAS's
# (bench/results/tridiagonal.md).
tridiagonal_on_lapack <- function(call = rlang::caller_env()) {
  switch(option_choice("kitchen.tridiagonal", c("auto", "kitchen", "lapack"), call),
         lapack = TRUE, kitchen = FALSE, auto = blas_beats_kitchen(call))
}
