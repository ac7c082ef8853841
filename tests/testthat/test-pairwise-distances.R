# The median heuristic's distances (src/pairwise_distances.cpp) are
# stats::dist()'s, bit for bit, on contiguous rows.

test_that("pairwise distances equal dist(), euclidean and manhattan, any thread count", {
  set.seed(4)
  for (d in c(1, 3, 17, 300)) {
    for (n in c(2, 5, 9, 120)) {
      x <- matrix(rnorm(n * d), n, d) * 10^runif(1, -3, 3)
      for (manhattan in c(FALSE, TRUE)) {
        expected <- as.vector(stats::dist(x, method = if (manhattan) "manhattan" else "euclidean"))
        for (threads in 1:2) {
          expect_identical(pairwise_distances_cpp(x, manhattan, threads), expected)
        }
      }
    }
  }
  expect_identical(pairwise_distances_cpp(matrix(1, 1, 3), FALSE, 1L), numeric(0))
})

test_that("the median heuristic's bandwidth is the median of dist()", {
  set.seed(5)
  x <- matrix(rnorm(400 * 6), 400, 6)
  expect_identical(rff(x, 20, seed = 1, scale = "none")$kernel$sigma, stats::median(stats::dist(x)))
  expect_identical(rbin(x, 5, seed = 1, scale = "none")$kernel$sigma,
                   stats::median(stats::dist(x, method = "manhattan")))
})
