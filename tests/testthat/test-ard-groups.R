# Columns coding one categorical variable share one bandwidth in
# krr_fit(sigma = "ard") (R/ard_groups.R).

test_that("one-hot blocks are found as variables, and nothing else", {
  set.seed(31)
  n <- 300
  f <- factor(sample(letters[1:3], n, replace = TRUE))
  g <- factor(sample(c("u", "v", "w"), n, replace = TRUE))
  one_hot <- stats::model.matrix(~ f - 1)            # three columns, each row sums to 1
  dummies <- stats::model.matrix(~ g)[, -1]          # treatment contrasts: base level all 0
  indicator <- as.numeric(runif(n) < 0.5)
  x <- cbind(a = rnorm(n), one_hot, dummies, indicator, b = runif(n))
  # Dummies whose rows may be all 0 are not grouped (they could as well be
  # rare binary columns that never meet).
  expect_identical(kitchen:::one_hot_groups(x), c(1L, 2L, 2L, 2L, 3:6))
  expect_identical(kitchen:::one_hot_groups(Matrix::Matrix(x, sparse = TRUE)),
                   kitchen:::one_hot_groups(x))
  # Two one-hot blocks side by side are two variables, and a one-hot block
  # is found after a binary column whose 1s fall in its later columns' rows.
  second <- stats::model.matrix(~ g - 1)
  expect_identical(kitchen:::one_hot_groups(cbind(one_hot, second)), rep(1:2, each = 3))
  some_c <- one_hot[, 3] * (runif(n) < 0.5)
  expect_identical(kitchen:::one_hot_groups(cbind(some_c, one_hot)), c(1L, 2L, 2L, 2L))
  # Numbers other than 0 and 1 are never grouped.
  expect_identical(kitchen:::one_hot_groups(cbind(one_hot * 2, 0.5 * dummies)), 1:5)
})

ard_group_data <- function(n, seed) {
  # y depends on x1 and on which of 4 categories a row is in; a second
  # factor (4 one-hot columns) is noise.
  set.seed(seed)
  relevant <- sample(4, n, replace = TRUE)
  noise <- sample(4, n, replace = TRUE)
  one_hot <- function(k) outer(k, 1:4, "==") * 1
  x <- cbind(runif(n), one_hot(relevant), one_hot(noise))
  y <- cbind(sin(2 * pi * x[, 1]) + c(-1, 0, 1, 2)[relevant] + rnorm(n, sd = 0.1))
  list(x = x, y = y)
}

test_that("the search fits one bandwidth per group, and prunes a noise group whole", {
  data <- ard_group_data(1500, 32)
  groups <- kitchen:::one_hot_groups(data$x)
  expect_identical(groups, c(1L, rep(2L, 4), rep(3L, 4)))
  kernel <- kernel_gaussian(1)
  w0 <- kitchen:::spectral_sample(kernel, ncol(data$x), 64)
  backend <- kitchen:::backend_settings(1L)
  inside <- seq_len(1500) <= 1000
  part <- function(rows) list(x = data$x[rows, ], y = data$y[rows, , drop = FALSE], w = rep(1, sum(rows)),
                              half = sample(rep(1:2, length.out = sum(rows))))
  train <- part(inside)
  search <- kitchen:::ard_search(train, kernel, w0, 50, backend, groups)
  expect_identical(search$groups, groups)
  for (g in 2:3) expect_equal(search$sigma[groups == g], rep(search$sigma[groups == g][1], 4))
  # The search's bandwidths are a minimum of the objective over the groups'
  # offsets: moving one group's bandwidth either way scores no better.
  objective <- function(sigma) {
    kitchen:::ard_objective(c(log(sigma), search$log_lambda), list(data = train, w0 = w0, backend = backend),
                            gradient = FALSE)$value
  }
  at_search <- objective(search$sigma)
  expect_equal(at_search, search$objective, tolerance = 1e-10)
  for (g in 1:2) for (f in c(0.8, 1.25)) {
    moved <- ifelse(groups == g, search$sigma * f, search$sigma)
    expect_gte(objective(moved), at_search - 1e-6)
  }
  # A noise group at a bandwidth that lets it in is left out as a whole.
  start <- list(sigma = c(0.3, rep(0.5, 4), rep(0.5, 4)), log_lambda = -8,
                log_upper = log(c(0.3, rep(0.5, 4), rep(0.5, 4)) * 1e4), groups = groups)
  pruned <- kitchen:::ard_prune(start, train, part(!inside), w0, backend)
  expect_identical(pruned$pruned, 6:9)
  expect_identical(pruned$sigma[1:5], start$sigma[1:5])
})

test_that("sigma = 'ard' gives a one-hot variable's columns one bandwidth", {
  data <- ard_group_data(3000, 33)
  fit <- krr_fit(data$x, data$y[, 1], rff(data$x, 200, seed = 4), sigma = "ard", n_threads = 1)
  expect_identical(fit$ard$groups, c(1L, rep(2L, 4), rep(3L, 4)))
  expect_true(fit$ard$kept)
  sigma <- fit$map$kernel$sigma
  expect_length(unique(sigma[2:5]), 1)
  expect_length(unique(sigma[6:9]), 1)
  # the relevant factor counts more than the noise one
  expect_gt(relevance(fit)[["x2"]], relevance(fit)[["x6"]])
  expect_output(print(summary(fit)), "8 one-hot columns\\s+share 2 bandwidths")
  # A formula fit with the one-hot columns as numbers: the same groups.
  frame <- data.frame(y = data$y[, 1], data$x)
  formula_fit <- krr_fit(y ~ ., frame, features = "rff", n_features = 200, sigma = "ard", seed = 4,
                         n_threads = 1)
  expect_identical(formula_fit$ard$groups, c(1L, rep(2L, 4), rep(3L, 4)))
  # A factor's treatment dummies keep one bandwidth each.
  frame <- data.frame(y = data$y[, 1], a = data$x[, 1], f = factor(max.col(data$x[, 2:5])))
  factor_fit <- krr_fit(y ~ ., frame, features = "rff", n_features = 200, sigma = "ard", seed = 4,
                        n_threads = 1)
  expect_identical(factor_fit$ard$groups, 1:4)
})

test_that("rbin's binned screen chooses between the pruned and the unpruned bandwidths", {
  # 5200 rows: 4000 for the search and fresh rows to check it, where
  # columns are pruned; x3 is noise.
  set.seed(34)
  n <- 5200
  x <- cbind(runif(n), runif(n), runif(n))
  y <- cbind(sin(2 * pi * x[, 1]) + x[, 2] + rnorm(n, sd = 0.1))
  backend <- kitchen:::backend_settings(1L)
  learned <- function(map) kitchen:::with_seed(5, kitchen:::ard_map(map, x, y, NULL, backend))
  dense <- learned(rff(x, 64, sigma = 0.5, seed = 1))
  expect_true(3L %in% dense$report$pruned)
  expect_null(dense$unpruned)
  binned <- learned(rbin(x, 10, sigma = 0.5, seed = 1, n_threads = 1))
  expect_true(3L %in% binned$report$pruned)
  pruned <- binned$report$pruned
  expect_identical(binned$unpruned[-pruned], binned$map$kernel$sigma[-pruned])
  expect_true(all(binned$unpruned[pruned] < binned$map$kernel$sigma[pruned]))
  expect_identical(kitchen:::binned_ard_starts(binned), list(binned$map$kernel$sigma, binned$unpruned))
  # The fit screens the overall scale from both; the report follows its choice.
  fit <- krr_fit(x, y[, 1], rbin(x, 10, sigma = 0.5, seed = 1, n_threads = 1), sigma = "ard",
                 n_threads = 1)
  # Two ladders of overall scales (factors of 2 from each start).
  levels <- fit$sigma_path$sigma[fit$sigma_path$per_column]
  expect_length(unique(round(log2(levels) %% 1, 8)), 2)
  expect_true(fit$ard$kept)
  expect_true(3L %in% c(fit$ard$pruned, fit$ard$pruned_kept))
  if (length(fit$ard$pruned_kept)) {
    expect_identical(fit$ard$pruned, integer())
    expect_output(print(summary(fit)), "left out kept")
  } else {
    expect_output(print(summary(fit)), "columns left out")
  }
})

test_that("rbin on large data averages the log-bandwidths of searches on independent draws", {
  binned <- rbin(3, 10, sigma = 0.5, n_buckets = 64, seed = 1)
  dense <- rff(3, 16, sigma = 0.5, seed = 1)
  count <- kitchen:::ard_search_count
  expect_identical(count(binned, 4000, TRUE), 1L)   # a subsample of at most 4000 rows: one search
  expect_identical(count(binned, 4001, TRUE), 3L)
  expect_identical(count(binned, 4001, FALSE), 1L)  # no fresh rows to check each on
  expect_identical(count(dense, 16000, TRUE), 1L)
  # Three draws of 600 rows, 200 of each fresh: the mean of their searches.
  set.seed(35)
  n <- 3000
  x <- cbind(runif(n), runif(n), runif(n))
  y <- cbind(sin(2 * pi * x[, 1]) + x[, 2] + rnorm(n, sd = 0.1))
  map <- rbin(x, 10, sigma = 0.5, seed = 1, n_threads = 1)
  x_in <- kitchen:::map_input(map, x, arg = "x")
  backend <- kitchen:::backend_settings(1L)
  groups <- kitchen:::one_hot_groups(x_in)
  one_check <- function() {
    draw <- kitchen:::ard_draw(map, x_in, y, NULL, 400, 200)
    kitchen:::ard_check(draw$data, draw$search_rows, map$kernel, draw$w0, backend, groups)
  }
  checks <- kitchen:::with_seed(6, list(one_check(), one_check(), one_check()))
  averaged <- kitchen:::with_seed(6, {
    kitchen:::ard_averaged(one_check(), 3L, map, x_in, y, NULL, backend, 400, 200, groups)
  })
  sigmas <- sapply(checks, function(check) check$search$sigma)
  expect_false(isTRUE(all.equal(sigmas[, 1], sigmas[, 2])))  # independent draws
  expect_equal(averaged$search$sigma, exp(rowMeans(log(sigmas))))
  expect_equal(averaged$gain, unlist(lapply(checks, `[[`, "gain")))
  expect_length(averaged$gain, 600)
  expect_equal(averaged$errors, colMeans(t(sapply(checks, `[[`, "errors"))))
  expect_identical(averaged$kept, kitchen:::ard_kept(averaged$errors, averaged$gain))
  expect_null(averaged$train)  # no pruning step on the mean
  # Through ard_map() on 130,000 rows (a subsample of 4062 rows).
  n <- 130000
  x <- cbind(runif(n), runif(n), runif(n))
  y <- cbind(sin(2 * pi * x[, 1]) + x[, 2] + rnorm(n, sd = 0.1))
  map <- rbin(x, 10, sigma = 0.5, seed = 1, n_threads = 1)
  ard <- kitchen:::with_seed(7, kitchen:::ard_map(map, x, y, NULL, backend))
  expect_identical(ard$report$searches, 3L)
  expect_identical(ard$report$rows, 4062)
  expect_identical(ard$report$check_rows, 6000)
  expect_true(ard$report$kept)
  expect_identical(ard$report$pruned, integer())
  expect_null(ard$unpruned)
  expect_lt(ard$map$kernel$sigma[1], ard$map$kernel$sigma[3])  # x3 is noise
  # summary() says so
  fit <- krr_fit(x[1:3000, ], y[1:3000, 1], rbin(x[1:3000, ], 10, sigma = 0.5, seed = 1, n_threads = 1),
                 sigma = "ard", n_threads = 1)
  expect_identical(fit$ard$searches, 1L)
  fit$ard <- ard$report
  expect_output(print(summary(fit)), "the mean of 3\\s+searches")
})

test_that("group steps halve or double one group's bandwidths while fold 1's error falls", {
  # A known error: squared log2 distances to the bandwidths (0.5, 4, 4, 1),
  # columns 2 and 3 one group.
  groups <- c(1L, 2L, 2L, 3L)
  target <- c(0.5, 4, 4, 1)
  tried <- list()
  screen <- function(s) {
    tried[[length(tried) + 1]] <<- s
    list(map = list(kernel = list(sigma = s)), score = sum((log2(s) - log2(target))^2))
  }
  start <- c(1, 2, 2, 1)
  screened <- lapply(c(2, 1), function(f) c(screen(start * f), list(start = 1L)))
  tried <- list()
  steps <- kitchen:::group_steps(screened, groups, screen)
  # From the better candidate (error 3); groups narrowest first (1 and 3 at
  # 1, in order, then 2): group 1 halved (taken), group 3 halved and
  # doubled (neither lower), group 2 halved (worse), doubled (taken).
  expect_identical(steps$log$group, c(1L, 3L, 3L, 2L, 2L))
  expect_identical(steps$log$factor, c(0.5, 0.5, 2, 0.5, 2))
  expect_identical(steps$log$error, c(2, 3, 3, 8, 0))
  expect_identical(steps$log$taken, c(TRUE, FALSE, FALSE, FALSE, TRUE))
  expect_length(tried, 5)  # one sweep
  expect_length(steps$screened, 7)
  expect_identical(steps$screened[[7]]$map$kernel$sigma, target)
  expect_true(all(vapply(steps$screened, `[[`, 0L, "start") == 1L))
  # Wide data: the 12 most relevant of 15 groups, narrowest first.
  flat <- function(s) list(map = list(kernel = list(sigma = s)), score = 1)
  wide <- kitchen:::group_steps(list(c(flat(2^c(20, 1:14)), list(start = 1L))), 1:15, flat)
  expect_identical(wide$log$group, rep(2:13, each = 2))
})

test_that("the binned screen steps group bandwidths, reusing fold 1 where no row changes bin", {
  set.seed(36)
  n <- 3000
  x <- cbind(runif(n), runif(n), runif(n))
  y <- cbind(sin(2 * pi * x[, 1]) + x[, 2] + rnorm(n, sd = 0.1))
  # x3 is noise with a bandwidth far wider than its range: every grid holds
  # it in one bin, halved or doubled, so those steps reuse the best's fold 1.
  map <- rbin(x, 10, sigma = c(0.5, 0.5, 1e6), seed = 1, n_threads = 1)
  backend <- kitchen:::backend_settings(1L)
  x_in <- kitchen:::map_input(map, x, arg = "x")
  search <- function(groups) {
    kitchen:::binned_bandwidth_search(map, kitchen:::memory_bins(x_in, backend), y, "auto", "cv",
                                      rep_len(1:5, n), 1e-5, 1000, backend, FALSE, NULL,
                                      groups = groups)
  }
  # Each fold-1 path's start (`top`, relative to n / n_features) and patience.
  paths <- list()
  record <- function(top, patience) {
    paths[[length(paths) + 1]] <<- c(top = if (is.null(top)) NA_real_ else top,
                                     patience = patience)
  }
  trace("binned_cv_path", where = asNamespace("kitchen"), print = FALSE,
        tracer = bquote(.(record)(top, patience)))
  on.exit(untrace("binned_cv_path", where = asNamespace("kitchen")))
  plain <- search(NULL)
  plain_paths <- paths
  paths <- list()
  stepped <- search(1:3)
  expect_null(plain$group_steps)
  steps <- stepped$group_steps
  # The steps screened on new bins (not the third group's) run a window of
  # lambdas: from half a decade above the best's lambda on the grid
  # 10^(k/2), stopping at the first that does not improve.
  windows <- Filter(function(p) p[["patience"]] == 1, paths)
  expect_false(any(vapply(plain_paths, function(p) p[["patience"]] == 1, TRUE)))
  expect_length(windows, sum(steps$group != 3L))
  for (p in windows) expect_equal(2 * log10(p[["top"]]), round(2 * log10(p[["top"]])))
  expect_identical(sort(unique(steps$group)), 1:3)
  third <- steps[steps$group == 3L, ]
  expect_identical(third$factor, c(0.5, 2))
  expect_false(any(third$taken))
  # Errors fall with each step taken; a step not taken was no lower.
  best <- min(plain$sigma_path$score)
  for (i in seq_len(nrow(steps))) {
    if (steps$taken[i]) {
      expect_lt(steps$error[i], best)
      best <- steps$error[i]
    } else {
      expect_gte(steps$error[i], best)
    }
  }
  before_third <- c(plain$sigma_path$score, steps$error[steps$taken & steps$group != 3L])
  expect_equal(third$error, rep(min(before_third), 2))
  # The chosen map is the last step taken (or the screen's best).
  expect_lte(min(stepped$sigma_path$score), min(plain$sigma_path$score))
  expect_identical(nrow(stepped$sigma_path), nrow(plain$sigma_path) + nrow(steps))
})

test_that("summary() names the group steps a fit took", {
  set.seed(37)
  x <- cbind(runif(300), runif(300))
  fit <- krr_fit(x, x[, 1] + rnorm(300, sd = 0.1), rff(x, 32, seed = 1), sigma = "ard", n_threads = 1)
  fit$ard$group_steps <- data.frame(group = c(1L, 2L, 2L), factor = c(0.5, 0.5, 2),
                                    error = c(0.2, 0.3, 0.19), taken = c(TRUE, FALSE, TRUE))
  said <- "2 of 3 steps on one group's bandwidths \\(halved or doubled\\) taken, fold-1 error 0.19"
  expect_output(print(summary(fit)), gsub(" ", "[[:space:]]+", said))
  fit$ard$group_steps <- NULL
  expect_false(any(grepl("steps on one group", capture.output(print(summary(fit))))))
})
