test_that("kitchen_simd reports the CPU level and honours the cap", {
  levels <- c("scalar", "avx2", "avx512")
  info <- kitchen_simd()
  expect_true(info$cpu %in% levels)
  expect_identical(with_simd("scalar", kitchen_simd())$used, "scalar")
  capped <- with_simd("avx2", kitchen_simd())$used
  expect_identical(capped, levels[min(match(info$cpu, levels), 2)])
  expect_identical(with_simd("auto", kitchen_simd())$used, info$cpu)
})

test_that("an invalid SIMD setting is refused", {
  expect_error(with_simd("sse9", kitchen_simd()), "kitchen.simd")
  expect_error(with_simd("sse9", fwht(1:4)), "kitchen.simd")
  old <- Sys.getenv("KITCHEN_SIMD", unset = NA)
  Sys.setenv(KITCHEN_SIMD = "fast")
  on.exit(if (is.na(old)) Sys.unsetenv("KITCHEN_SIMD") else Sys.setenv(KITCHEN_SIMD = old))
  expect_error(kitchen_simd(), "KITCHEN_SIMD")
})
