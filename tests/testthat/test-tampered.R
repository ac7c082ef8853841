# Maps and fits are plain lists: users edit them, save and reload them.
# Methods on a tampered object must fail with kitchen's argument error
# naming the malformed field, never crash, hang or return wrong numbers.

set.seed(1)
x <- matrix(rnorm(40 * 3), 40, 3, dimnames = list(NULL, c("a", "b", "c")))
y <- rnorm(40)
rff_map <- rff(x, 20, sigma = 1, seed = 1)
phase_map <- rff(x, 20, sigma = 1, type = "cos_phase", seed = 1)
ff_map <- fastfood(x, 20, sigma = 1, seed = 1)
bin_map <- rbin(x, 10, sigma = 1, seed = 1, n_threads = 1)
hashed_map <- rbin(x, 10, sigma = 1, n_buckets = 16, seed = 1, n_threads = 1)
fit <- krr_fit(x, y, rff_map, lambda = 1, n_threads = 1)
binned_fit <- krr_fit(x, y, bin_map, lambda = 1, n_threads = 1)
class_fit <- krr_fit(x, factor(y > 0), rff_map, lambda = 1, n_threads = 1)

tamper <- function(object, field, value) {
  object[field] <- list(value)
  object
}
replace_at <- function(v, i, value) {
  v[i] <- value
  v
}
dup_perm <- replace_at(ff_map$perm, 2, ff_map$perm[1])
dup_keys <- replace_at(bin_map$keys, 1:8, bin_map$keys[9:16])

# label, the tampered object, the field the message must name
maps <- list(
  list("rff: projection NULL", tamper(rff_map, "projection", NULL), "projection"),
  list("rff: projection a row short", tamper(rff_map, "projection", rff_map$projection[-1, ]), "projection"),
  list("rff: projection integer", tamper(rff_map, "projection", `storage.mode<-`(rff_map$projection, "integer")), "projection"),
  list("rff: projection NA", tamper(rff_map, "projection", replace_at(rff_map$projection, 5, NA)), "finite"),
  list("rff: projection Inf", tamper(rff_map, "projection", replace_at(rff_map$projection, 5, Inf)), "finite"),
  list("rff: n_features odd", tamper(rff_map, "n_features", 21L), "n_features"),
  list("rff: n_features string", tamper(rff_map, "n_features", "20"), "n_features"),
  list("rff: d NULL", tamper(rff_map, "d", NULL), "d"),
  list("rff: d 2.5", tamper(rff_map, "d", 2.5), "d"),
  list("rff: center NA", tamper(rff_map, "center", replace_at(rff_map$center, 1, NA)), "center"),
  list("rff: center too long", tamper(rff_map, "center", c(rff_map$center, 0)), "center"),
  list("rff: scale 0", tamper(rff_map, "scale", replace_at(rff_map$scale, 2, 0)), "scale"),
  list("rff: kernel NULL", tamper(rff_map, "kernel", NULL), "kernel"),
  list("rff: kernel sigma -1", tamper(rff_map, "kernel", tamper(rff_map$kernel, "sigma", -1)), "kernel"),
  list("rff: type other", tamper(rff_map, "type", "cos"), "type"),
  list("rff: scaling NULL", tamper(rff_map, "scaling", NULL), "scaling"),
  list("rff: col_names short", tamper(rff_map, "col_names", c("a", "b")), "col_names"),
  list("rff: phases NULL", tamper(phase_map, "phases", NULL), "phases"),
  list("rff: phases short", tamper(phase_map, "phases", phase_map$phases[-1]), "phases"),
  list("rff: phases NaN", tamper(phase_map, "phases", replace_at(phase_map$phases, 3, NaN)), "finite"),
  list("fastfood: perm duplicate", tamper(ff_map, "perm", dup_perm), "perm"),
  list("fastfood: perm 0", tamper(ff_map, "perm", replace_at(ff_map$perm, 1, 0L)), "perm"),
  list("fastfood: perm NA", tamper(ff_map, "perm", replace_at(ff_map$perm, 1, NA)), "perm"),
  list("fastfood: perm too large", tamper(ff_map, "perm", replace_at(ff_map$perm, 1, 5L)), "perm"),
  list("fastfood: perm double", tamper(ff_map, "perm", ff_map$perm + 0), "perm"),
  list("fastfood: perm short", tamper(ff_map, "perm", ff_map$perm[-1]), "perm"),
  list("fastfood: signs 2", tamper(ff_map, "signs", replace_at(ff_map$signs, 1, as.raw(2))), "signs"),
  list("fastfood: signs integer", tamper(ff_map, "signs", as.integer(ff_map$signs)), "signs"),
  list("fastfood: gauss NA", tamper(ff_map, "gauss", replace_at(ff_map$gauss, 1, NA)), "gauss"),
  list("fastfood: gauss one block", tamper(ff_map, "gauss", ff_map$gauss[, 1, drop = FALSE]), "gauss"),
  list("fastfood: gauss 3 rows", tamper(ff_map, "gauss", ff_map$gauss[1:3, , drop = FALSE]), "gauss"),
  list("fastfood: gauss vector", tamper(ff_map, "gauss", as.vector(ff_map$gauss)), "gauss"),
  list("fastfood: radial Inf", tamper(ff_map, "radial", replace_at(ff_map$radial, 1, Inf)), "radial"),
  list("fastfood: radial short", tamper(ff_map, "radial", ff_map$radial[-1]), "radial"),
  list("fastfood: d 9", tamper(ff_map, "d", 9), "center"),
  list("fastfood: n_features 2000", tamper(ff_map, "n_features", 2000L), "radial|gauss"),
  list("fastfood: kernel sigma 0", tamper(ff_map, "kernel", tamper(ff_map$kernel, "sigma", 0)), "kernel"),
  list("rbin: keys truncated", tamper(bin_map, "keys", bin_map$keys[-(1:8)]), "keys"),
  list("rbin: keys reversed", tamper(bin_map, "keys", rev(bin_map$keys)), "keys"),
  list("rbin: keys duplicated", tamper(bin_map, "keys", dup_keys), "keys"),
  list("rbin: keys integer", tamper(bin_map, "keys", as.integer(bin_map$keys)), "keys"),
  list("rbin: n_bins NA", tamper(bin_map, "n_bins", replace_at(bin_map$n_bins, 1, NA)), "n_bins"),
  list("rbin: n_bins negative", tamper(bin_map, "n_bins", replace_at(bin_map$n_bins, 1:2, c(-1L, bin_map$n_bins[1] + bin_map$n_bins[2] + 1L))), "n_bins"),
  list("rbin: n_bins short", tamper(bin_map, "n_bins", bin_map$n_bins[-1]), "n_bins"),
  list("rbin: n_grids 11", tamper(bin_map, "n_grids", 11L), "pitch"),
  list("rbin: pitch negative", tamper(bin_map, "pitch", -bin_map$pitch), "pitch"),
  list("rbin: pitch a grid short", tamper(bin_map, "pitch", bin_map$pitch[, -1]), "pitch"),
  list("rbin: shift NaN", tamper(bin_map, "shift", replace_at(bin_map$shift, 1, NaN)), "shift"),
  list("rbin: n_features off", tamper(bin_map, "n_features", bin_map$n_features + 1L), "n_features"),
  list("rbin hashed: n_buckets 0", tamper(hashed_map, "n_buckets", 0L), "n_buckets"),
  list("rbin hashed: n_features off", tamper(hashed_map, "n_features", 3L), "n_features"),
  list("rbin hashed: 2^40 buckets", tamper(tamper(hashed_map, "n_buckets", 2^40), "n_features", 10 * 2^40), "n_features"),
  list("class: rff map as fastfood", structure(rff_map, class = c("kitchen_fastfood", "kitchen_map")), "gauss"),
  list("class: fastfood map as rff", structure(ff_map, class = c("kitchen_rff", "kitchen_map")), "projection"),
  list("class: rff map as rbin", structure(rff_map, class = c("kitchen_rbin", "kitchen_map")), "n_grids"),
  list("class: kitchen_map only", structure(unclass(rff_map), class = "kitchen_map"), "feature map"),
  list("class: a number", structure(1, class = c("kitchen_rff", "kitchen_map")), "feature map"),
  list("class: empty list", structure(list(), class = c("kitchen_rbin", "kitchen_map")), "d"))

test_that("predict() and print() refuse tampered maps, naming the field", {
  for (case in maps) {
    expect_error(predict(case[[2]], x, n_threads = 1), case[[3]],
                 class = "kitchen_error_argument", label = case[[1]])
    expect_error(print(case[[2]]), case[[3]], class = "kitchen_error_argument", label = case[[1]])
  }
})

test_that("krr_fit() and as.matrix() refuse tampered maps", {
  for (case in maps[1:20]) {
    expect_error(krr_fit(x, y, case[[2]], lambda = 1, n_threads = 1), case[[3]],
                 class = "kitchen_error_argument", label = case[[1]])
  }
  expect_error(as.matrix(tamper(ff_map, "perm", dup_perm)), "perm", class = "kitchen_error_argument")
  expect_error(krr_fit(chunked(list(list(x = x, y = y))), tamper(ff_map, "radial", NULL), lambda = 1),
               "radial", class = "kitchen_error_argument")
})

fits <- list(
  list("coefficients a row short", tamper(fit, "coefficients", fit$coefficients[-1, , drop = FALSE]), "coefficients"),
  list("coefficients NA", tamper(fit, "coefficients", replace_at(fit$coefficients, 1, NA)), "coefficients"),
  list("coefficients Inf", tamper(fit, "coefficients", replace_at(fit$coefficients, 1, Inf)), "coefficients"),
  list("coefficients a vector", tamper(fit, "coefficients", drop(fit$coefficients)), "coefficients"),
  list("coefficients NULL", tamper(fit, "coefficients", NULL), "coefficients"),
  list("coefficients character", tamper(fit, "coefficients", "a"), "coefficients"),
  list("intercept NA", tamper(fit, "intercept", NA_real_), "intercept"),
  list("intercept two values", tamper(fit, "intercept", c(1, 2)), "intercept"),
  list("intercept NULL", tamper(fit, "intercept", NULL), "intercept"),
  list("response NULL", tamper(fit, "response", NULL), "response"),
  list("response type other", tamper(fit, "response", list(type = "zzz")), "response"),
  list("class levels missing", tamper(class_fit, "response", list(type = "class")), "levels"),
  list("map NULL", tamper(fit, "map", NULL), "feature map"),
  list("map tampered", tamper(fit, "map", tamper(rff_map, "projection", 1)), "projection"),
  list("map of other size", tamper(fit, "map", rff(x, 40, sigma = 1, seed = 1)), "coefficients"),
  list("binned coefficients short", tamper(binned_fit, "coefficients", binned_fit$coefficients[-1, , drop = FALSE]), "coefficients"),
  list("binned map keys shuffled", tamper(binned_fit, "map", tamper(bin_map, "keys", rev(bin_map$keys))), "keys"),
  list("terms not terms", tamper(fit, "terms", "y ~ ."), "terms"),
  list("not a list", structure(1, class = "kitchen_krr"), "fit"))

test_that("predict(), coef() and print() refuse tampered fits, naming the field", {
  for (case in fits) {
    expect_error(predict(case[[2]], x, n_threads = 1), case[[3]],
                 class = "kitchen_error_argument", label = case[[1]])
    expect_error(coef(case[[2]]), case[[3]], class = "kitchen_error_argument", label = case[[1]])
    expect_error(print(case[[2]]), case[[3]], class = "kitchen_error_argument", label = case[[1]])
  }
  # print(), summary() and plot() also read the path and figures
  for (field in c("path", "lambda", "n", "time", "training_rmse")) {
    broken <- tamper(fit, field, NULL)
    expect_error(print(broken), field, class = "kitchen_error_argument", label = field)
    expect_error(summary(broken), field, class = "kitchen_error_argument", label = field)
  }
  expect_error(plot(tamper(fit, "path", "x")), "path", class = "kitchen_error_argument")
  expect_length(predict(fit, chunked(list(list(x = x, y = y))), n_threads = 1), 40)
  expect_error(predict(tamper(fit, "intercept", NA_real_), chunked(list(list(x = x, y = y)))),
               "intercept", class = "kitchen_error_argument")
})

test_that("fields predict() does not read may go; the answer is unchanged", {
  expect_identical(predict(tamper(fit, "call", NULL), x, n_threads = 1), predict(fit, x, n_threads = 1))
  expect_identical(predict(tamper(rff_map, "phases", "unused"), x, n_threads = 1),
                   predict(rff_map, x, n_threads = 1))
  expect_identical(predict(tamper(rff_map, "col_names", NULL), unname(x), n_threads = 1),
                   predict(rff_map, unname(x), n_threads = 1))
})

test_that("maps and fits read back from saveRDS() give the same answers", {
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  for (object in list(rff_map, phase_map, ff_map, bin_map, hashed_map)) {
    saveRDS(object, path)
    expect_identical(predict(readRDS(path), x, n_threads = 1), predict(object, x, n_threads = 1))
  }
  for (object in list(fit, binned_fit, class_fit)) {
    saveRDS(object, path)
    back <- readRDS(path)
    expect_identical(predict(back, x, n_threads = 1), predict(object, x, n_threads = 1))
    expect_identical(coef(back), coef(object))
  }
})

test_that("the C++ glue checks sizes itself, even when R's checks are bypassed", {
  # Each call once read or wrote out of bounds (found by tools/sanitize.sh
  # probes); now each returns a message naming the field.
  expect_type(kitchen:::rff_features_cpp(x, matrix(1, 3000, 10), 1, NULL, "cos_sin", FALSE, 1L, "scalar"), "character")
  expect_type(kitchen:::rff_features_cpp(x, matrix(1, 3, 10), rep(0, 3), c(1, 2), "cos_phase", FALSE, 1L, "scalar"), "character")
  expect_type(kitchen:::rff_features_cpp(x[, 1:2], matrix(1, 3, 10), rep(0, 3), NULL, "cos_sin", FALSE, 1L, "scalar"), "character")
  expect_type(kitchen:::rbin_columns_cpp(x, bin_map$pitch, bin_map$shift, 0, 1, bin_map$keys,
                                         bin_map$n_bins, 0, 1L, "scalar"), "character")
  expect_type(kitchen:::rbin_columns_cpp(x, bin_map$pitch, bin_map$shift[, -1], bin_map$center,
                                         bin_map$scale, bin_map$keys, bin_map$n_bins, 0, 1L, "scalar"), "character")
  expect_type(kitchen:::rbin_columns_cpp(x, bin_map$pitch, bin_map$shift, bin_map$center, bin_map$scale,
                                         bin_map$keys, replace_at(bin_map$n_bins, 1, -5L), 0, 1L, "scalar"), "character")
  expect_type(kitchen:::rbin_columns_cpp(x[, 1:2], bin_map$pitch, bin_map$shift, bin_map$center,
                                         bin_map$scale, bin_map$keys, bin_map$n_bins, 0, 1L, "scalar"), "character")
  expect_type(kitchen:::fastfood_features_cpp(x[, 1:2], FALSE, ff_map, ff_map$center, ff_map$scale,
                                              FALSE, 1L, "scalar"), "character")
  expect_type(kitchen:::fastfood_features_cpp(x, FALSE, tamper(ff_map, "perm", dup_perm), ff_map$center,
                                              ff_map$scale, FALSE, 1L, "scalar"), "character")
})

test_that("the binned product glue checks every column number, not only sizes", {
  cols <- kitchen:::rbin_columns(bin_map, x, kitchen:::backend_settings(1L))
  n_col <- bin_map$n_features
  first <- c(0, cumsum(as.numeric(bin_map$n_bins)))
  v <- rnorm(n_col)
  u <- rnorm(nrow(x))
  # The untouched columns give products and the sparse matrix.
  expect_type(kitchen:::binned_times_cpp(cols, v, 0.1, 1L), "double")
  expect_type(kitchen:::binned_crossprod_cpp(cols, u, n_col, 0.1, 1L), "double")
  expect_s4_class(kitchen:::rbin_sparse_cpp(cols, first, 0.1, 1L), "dgCMatrix")
  # Each tampering once indexed out of bounds: past the end, below -1, NA
  # (INT_MIN to C++), or into another grid's columns.
  ones <- rep(1, nrow(x))
  zeros <- numeric(n_col)
  for (threads in 1:2) {
    for (bad in list(n_col, n_col + 10^6, -2L, .Machine$integer.max, -.Machine$integer.max,
                     NA_integer_)) {
      tampered <- cols
      tampered[7, 3] <- as.integer(bad)
      expect_match(kitchen:::binned_times_cpp(tampered, v, 0.1, threads), "column numbers")
      expect_match(kitchen:::binned_crossprod_cpp(tampered, u, n_col, 0.1, threads), "column numbers")
      expect_match(kitchen:::binned_crossprod_cpp(tampered, cbind(u, u), n_col, 0.1, threads),
                   "column numbers")
      expect_match(kitchen:::rbin_sparse_cpp(tampered, first, 0.1, threads), "range")
      expect_match(kitchen:::binned_cg_cpp(tampered, ones, zeros, zeros + 1, matrix(v),
                                           matrix(zeros), 1, 0.1, 1e-6, 5L, threads),
                   "column numbers")
      expect_match(kitchen:::binned_scores_cpp(tampered, matrix(v), 0.1, threads), "column numbers")
    }
    other_grid <- cols
    other_grid[1, 1] <- as.integer(first[3])  # a column of grid 3 in grid 1
    expect_match(kitchen:::rbin_sparse_cpp(other_grid, first, 0.1, threads), "range")
  }
  # A v shorter than the columns used, a u of the wrong length, bad offsets.
  expect_match(kitchen:::binned_times_cpp(cols, v[1:5], 0.1, 1L), "column numbers")
  expect_match(kitchen:::binned_crossprod_cpp(cols, u[-1], n_col, 0.1, 1L), "one value per row")
  expect_match(kitchen:::binned_crossprod_cpp(cols, cbind(u, u)[-1, ], n_col, 0.1, 1L),
               "one value per row")
  expect_match(kitchen:::binned_crossprod_cpp(cols, matrix(0, nrow(x), 0), n_col, 0.1, 1L),
               "one value per row")
  freed <- kitchen:::binned_cg_workspace_cpp()
  kitchen:::binned_cg_workspace_free_cpp(freed)
  expect_match(kitchen:::binned_cg_cpp(cols, ones, zeros, zeros + 1, matrix(v), matrix(zeros), 1,
                                       0.1, 1e-6, 5L, 1L, freed), "freed")
  expect_match(kitchen:::binned_crossprod_cpp(cols, u, 5, 0.1, 1L), "column numbers")
  expect_match(kitchen:::binned_crossprod_cpp(cols, u, -1, 0.1, 1L), "count")
  expect_match(kitchen:::rbin_sparse_cpp(cols, first[-1], 0.1, 1L), "offset")
  expect_match(kitchen:::rbin_sparse_cpp(cols, replace(first, 2, first[3] + 1), 0.1, 1L), "non-decreasing")
  expect_match(kitchen:::rbin_sparse_cpp(cols, replace(first, 2, 0.5), 0.1, 1L), "whole")
  expect_match(kitchen:::rbin_sparse_cpp(cols, first + 1, 0.1, 1L), "from 0")
})

test_that("predict() of a binned fit checks the coefficients its rows use", {
  cols <- kitchen:::rbin_columns(bin_map, x[1:2, ], kitchen:::backend_settings(1L))
  broken <- binned_fit
  broken$coefficients[cols[1, 1] + 1, 1] <- NaN
  expect_error(predict(broken, x[1:2, ]), "coefficients")
  expect_error(coef(broken), "coefficients")
  expect_error(print(broken), "coefficients")
  expect_error(kitchen:::binned_scores_cpp(cols, binned_fit$coefficients[1:3, , drop = FALSE], 0.1, 1L),
               NA)  # a string, not an error
  expect_match(kitchen:::binned_scores_cpp(cols, binned_fit$coefficients[1:3, , drop = FALSE], 0.1, 1L),
               "column numbers")
})
