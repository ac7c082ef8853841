# a %*% b for dense matrices: on kitchen's product kernels (AVX2 /
# AVX-512, src/dense_product.cpp), or on R's BLAS when the products go
# there (options(kitchen.gemm), R/backends.R) or the CPU has neither level.
# Results differ from R's %*% in rounding only.
dense_product <- function(a, b, backend) {
  if (!backend$blas && backend$simd != "scalar") {
    out <- dense_product_cpp(a, b, backend$n_threads, backend$simd)
    if (!is.null(out)) return(out)
  }
  a %*% b
}
