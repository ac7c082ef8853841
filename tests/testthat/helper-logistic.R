# Data and a direct Newton solve in R for the logistic-loss tests
# (test-krr-logistic-chunked.R, test-krr-binned-logistic.R).

logistic_data <- function(n, classes, seed) {
  set.seed(seed)
  x <- matrix(runif(n * 2, -2, 2), n, 2)
  score <- cbind(sin(2 * x[, 1]), x[, 2], -x[, 1] * x[, 2])[, seq_len(classes)]
  label <- max.col(score + matrix(rnorm(n * classes, sd = 0.6), n), "first")
  list(x = x, y = factor(letters[label], levels = letters[seq_len(classes)]))
}

# Newton's method with step halving on sum w * -log p[y] + lambda ||beta||^2,
# beta the feature coefficients of every class (one link, class 2's minus
# class 1's, for two classes); intercepts unpenalised, class 1's fixed at 0
# for more than two classes (the softmax only sees their differences).
newton_logistic <- function(z, y, lambda, w = rep(1, nrow(z))) {
  k <- nlevels(y)
  d <- ncol(z)
  onehot <- outer(as.integer(y), seq_len(k), "==") * 1
  free <- if (k == 2) 1 else k
  design <- cbind(1, z)
  # theta: the (d + 1) x free matrix, stacked; for k > 2 the first entry
  # (class 1's intercept) is dropped.
  keep <- if (k == 2) seq_len(d + 1) else seq_len((d + 1) * k)[-1]
  links_of <- function(m) if (k == 2) cbind(0, design %*% m) else design %*% m
  unpack <- function(theta) {
    full <- numeric((d + 1) * free)
    full[keep] <- theta
    matrix(full, d + 1, free)
  }
  objective <- function(m) {
    links <- links_of(m)
    shift <- apply(links, 1, max)
    log_p <- links - shift - log(rowSums(exp(links - shift)))
    -sum(w * rowSums(onehot * log_p)) + lambda * sum(m[-1, ]^2)
  }
  theta <- numeric(length(keep))
  for (iteration in 1:100) {
    m <- unpack(theta)
    links <- links_of(m)
    p <- exp(links - apply(links, 1, max))
    p <- p / rowSums(p)
    if (k == 2) {
      gradient <- crossprod(design, w * (p[, 2] - onehot[, 2])) + 2 * lambda * c(0, m[-1, 1])
      hessian <- crossprod(design, w * p[, 2] * (1 - p[, 2]) * design) +
        diag(2 * lambda * c(0, rep(1, d)))
    } else {
      gradient <- c(crossprod(design, w * (p - onehot)) + 2 * lambda * rbind(0, m[-1, ]))
      hessian <- matrix(0, (d + 1) * k, (d + 1) * k)
      for (a in 1:k) for (b in 1:k) {
        weight <- w * p[, a] * ((a == b) - p[, b])
        hessian[(a - 1) * (d + 1) + 1:(d + 1), (b - 1) * (d + 1) + 1:(d + 1)] <-
          crossprod(design, weight * design) + (a == b) * diag(2 * lambda * c(0, rep(1, d)))
      }
      gradient <- gradient[keep]
      hessian <- hessian[keep, keep]
    }
    step <- solve(hessian, gradient)
    before <- objective(m)
    t <- 1
    while (objective(unpack(theta - t * step)) > before && t > 1e-10) t <- t / 2
    theta <- theta - t * step
    if (max(abs(t * step)) < 1e-13) break
  }
  m <- unpack(theta)
  if (k == 2) m <- cbind(0, m)
  list(coefficients = m[-1, , drop = FALSE], intercept = m[1, ])
}

# Intercepts are compared as differences from the first class's.
relative_intercepts <- function(b) unname(b - b[1])
