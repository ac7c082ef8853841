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

test_that("the SIMD level crosses to C++ by name", {
  # resolve_simd() gives a name, the glue takes only those names
  expect_true(kitchen:::resolve_simd() %in% kitchen:::simd_levels())
  expect_identical(with_simd("avx2", kitchen:::resolve_simd()), "avx2")
  x <- matrix(as.double(1:8), 4)
  expect_identical(kitchen:::fwht_cpp(x, 4, FALSE, 1L, "scalar"), fwht(x))
  for (bad in list(2L, "sse9", NA_character_, c("avx2", "avx2"))) {
    expect_error(kitchen:::fwht_cpp(x, 4, FALSE, 1L, bad), "simd must be one of")
  }
})
