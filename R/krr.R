#' Ridge regression on random features
#'
#' Fits the linear machine of Rahimi and Recht (2007, section 5) on the
#' features of a [rff()], [fastfood()], [rbin()] or [nystrom()] map: ridge regression
#' of `y` on `z(x)`, which approximates kernel ridge regression with the
#' map's kernel at a cost linear in the number of rows.
#'
#' The feature matrix is never held in memory: rows are featurised in blocks
#' of `block_size` (in parallel), and each block is added to the sufficient
#' statistics `Z'Z`, `Z'y`, the column sums and `y'y`. `Z'Z` goes to
#' kitchen's own multithreaded AVX-512 or AVX2 kernels when the CPU has them
#' (see [kitchen_simd()]; `bench/results/gram.md` in kitchen's source
#' repository has their speed), else to R's BLAS (`dsyrk`) when it is an
#' optimised one, else to Eigen; `options(kitchen.gemm = "blas")` forces
#' R's BLAS and `"eigen"` kitchen's own code. The intercept is not penalised: features and
#' responses are centred.
#'
#' Memory is set by `D x D` matrices, not by the rows: a least-squares fit
#' holds 3 (a given `lambda` or GCV; one more per bandwidth candidate),
#' `n_folds` + 2 with lambda by CV or for a classifier's calibration, or 2
#' (`n_folds` + 1) with several bandwidth candidates (their two finalists'
#' folds), 8 bytes per entry (on the dual path below, `n x n` ones and the
#' rows' features). Before its passes over the data (after building the
#' map and any bandwidth search on a subsample), a fit that would need more
#' than the memory the system has available (where it says: Linux, within
#' a cgroup's limit) is refused, naming the argument to change;
#' `options(kitchen.memory_check = FALSE)` skips the check. 12,000 features
#' with 5-fold CV take about 8 GB.
#'
#' **What the defaults do, and why.** With every default (`lambda = "cv"`,
#' a map named by `features` with 1000 features, or 100 grids, built with
#' `clip = TRUE`), a fit is meant to be safe on any data set, at a cost of
#' about one more pass's worth of solves (1.7 times GCV's on
#' `bench/krr.R`'s problem, a given map):
#' * lambda is chosen by 5-fold cross-validation, not GCV. GCV trusts the
#'   training rows: with as many features as rows or more (iris, mtcars) it
#'   picks the smallest candidate and interpolates, and a few outlying rows
#'   pull it towards too little penalty. On the real data sets of
#'   `bench/defaults.R` (1000 rff features), GCV's test error was 4.6 times
#'   CV's on mtcars and 8 times on iris, and never clearly better
#'   (results in `bench/results/defaults.md`). CV costs five more
#'   reductions of a `D x D` matrix (of an `n x n` one when the rows are
#'   few: see the dual path below), and the same single pass over the data.
#' * the 50 candidates for lambda run from ten times the mean non-zero
#'   eigenvalue of the centred `Z'Z` down ten decades. With more features
#'   than rows, `Z'Z` has at most `n - 1` non-zero eigenvalues, which share
#'   its trace, so the candidates follow the kernel and not `D`. (Averaged
#'   over all `D` eigenvalues, they sat `D / n` times lower: on mtcars' 24
#'   rows CV chose the top candidate with 1000 and with 4000 features, the
#'   latter a quarter of the former's penalty, and some of those fits
#'   nearly interpolated.) With `loss = "logistic"`, 15 candidates from
#'   ten times the mean eigenvalue of the log-likelihood's bound (a quarter
#'   of the centred `Z'WZ`) down seven decades, averaged over all `D`
#'   eigenvalues (averaged over the non-zero ones only, as above, the
#'   held-out log-loss was worse on three of four small sets with more
#'   features than rows, and the same on iris: `R/krr_logistic.R`).
#' * candidates are scored on the response divided by a power of two near
#'   its largest magnitude (and the solution multiplied back, exactly), so
#'   the choice does not depend on the units of `y` and `y'y` cannot
#'   overflow or underflow.
#' * new inputs are clipped to the training range of each column (see
#'   `clip` in [rff()]): a test row far outside the training data gets the
#'   prediction of the training boundary instead of an arbitrary one.
#' * an rff or Fastfood map named by `features` rescales each column's
#'   training range onto `[-1, 1]` (`scale = "minmax"`), not to unit
#'   standard deviation. With clipping, every input then lies in the cube
#'   the kernel was set for, and a heavy-tailed column (its range many
#'   standard deviations wide) weighs less in the distances than it would
#'   standardised, where its outlying rows dominate the spread. On CPU's raw
#'   inputs (zero-inflated, heavy-tailed counters) the test error fell from
#'   0.25 to 0.15 of the response's spread (1000 features, with the
#'   bandwidth below); over the 14 data sets of `bench/defaults.R` the two
#'   changes together were better or equal on 7, within 1% on 2 and worse
#'   by 1-6% on 5 (ames the most; `bench/results/defaults.md`). Give
#'   `scale` to choose.
#' * the bandwidth of such a map is not the median heuristic's alone (see
#'   [rff()]): that sets the scale of the distances, not how smooth the
#'   response is in them. The median heuristic's bandwidth times 2^-3, ...,
#'   2^3 are scored on a random subsample of up to 4000 training rows by
#'   ridge regression on 256 random Fourier features of the kernel, fitted
#'   on one half and scored on the other over a coarse grid of lambdas (the
#'   isotropic step of `sigma = "ard"` below); the best one is set in the
#'   map (its random draws kept, rescaled), and lambda is then chosen for
#'   the real fit. The search costs the same whatever the number of rows
#'   and features (under a second of CPU time). A given map, a kernel object in `...`
#'   or a given `sigma` keep their bandwidths.
#' * an [rbin()] map named by `features` starts from the median heuristic's
#'   bandwidth, which is far wider than binning on all rows fits best; from
#'   2,000 training rows on (with the squared loss and lambda chosen), it is
#'   searched as with `sigma = "auto"`: halved while fold 1's held-out error
#'   falls (see "Random binning maps" below). On UCI letter (16,000 rows,
#'   26 classes) the test error fell from 0.142 to 0.034, and the fit took
#'   402 s instead of 48 s (many classes over many more bins); on the 6 data sets
#'   of `bench/defaults.R` with 2,000 rows or more it fell on 5 (CoverType
#'   0.211 to 0.138, Parkinsons 0.469 to 0.350) and stayed on ames, for
#'   about 1.6 times the time. On the smaller ones fold 1 is too small to
#'   rank bandwidths reliably (2 better, 2 worse, 4 unchanged), so they keep
#'   the median heuristic (`bench/results/rbin-default-search.md`).
#' * a map built by name without a `seed` takes one from R's random stream
#'   (a single draw, so `set.seed()` still reproduces the fit), and its
#'   random draws, the bandwidth searches' and the folds all run under that
#'   seed, as under a given one. The fit keeps it as `fit$seed`, so that
#'   `update(fit, seed = fit$seed)` makes the same fit again from the saved
#'   object (a plain `update(fit)` draws a new seed, as the call did). Fits
#'   that differ only in `n_features` share their folds and their searched
#'   bandwidth, and differ only by their random features. (When the stream
#'   ran on through the map's draws, `set.seed(1)` gave mtcars 2 times the
#'   median heuristic's bandwidth with 1000 features and 4 times with 4000,
#'   and other folds.) With a `seed` given, the same call gives the same
#'   fit, as with ranger's `seed`.
#' * a warning says when the chosen fit nearly interpolates its rows
#'   (effective degrees of freedom at least 90% of the rows), which a given
#'   `lambda` or a grid of small candidates can still produce.
#'
#' With `lambda = "gcv"` or a vector of values, one reduction
#' of the centred `Z'Z` to tridiagonal form (a third of the work of a
#' symmetric eigendecomposition; kitchen's own blocked Householder reduction
#' on `n_threads` threads and AVX-512 / AVX2 kernels, or LAPACK's `dsytrd`
#' when SIMD is off and R's BLAS is an optimised one;
#' `options(kitchen.tridiagonal = "lapack")` or `"kitchen"` forces either) gives the generalised
#' cross-validation score of every candidate exactly, at O(D) each, and the
#' candidate with the lowest score is kept. A single number is used as given
#' (solved by Cholesky, no score). With `lambda = "cv"`, the same candidates
#' are scored by K-fold cross-validation instead: per-fold sufficient
#' statistics are gathered in the same single pass, and each fold's
#' validation error is computed from them exactly, with no second pass.
#' From 2048 features on (with the AVX2 / AVX-512 kernels), the
#' tridiagonal forms give way to band forms of the same matrices (48
#' sub-diagonals, made by matrix products) and a banded Cholesky factor per
#' candidate (GCV's degrees of freedom from the band of its inverse),
#' since the tridiagonal reduction is bounded by memory speed past the
#' caches: the same scores and coefficients to rounding, faster for large
#' `D`. `options(kitchen.band_reduction = n)` sets the number of features
#' from which band forms are used (`Inf`: never).
#'
#' **Far fewer rows than features: the dual path.** Every reduction above
#' is of a `D x D` matrix, whatever the number of rows: on mtcars (32 rows)
#' with 4000 features, a default fit took minutes. When the rows are at
#' most a third of the features (`3 * nrow(x) <= n_features`), a
#' least-squares fit of an rff, Fastfood or Nystroem map on data in memory
#' (`solver = "direct"`) therefore works with rows instead: it computes the
#' `n x D` feature matrix once and the `n x n` Gram matrix `K = A A'` of its
#' rows centred (and scaled by the square roots of the weights), `A`. The
#' ridge coefficients are `w = A' (K + lambda I)^-1 b` (`b` the centred,
#' weighted response), the effective degrees of freedom of GCV are
#' `1 + sum(e / (e + lambda))` over the eigenvalues `e` of `K` (the non-zero
#' eigenvalues of the centred `Z'Z`), and each CV fold (including the
#' bandwidth screen's fold 1 and the folds of the class calibration) needs
#' only the eigendecomposition of its training rows' `K`, centred at their
#' own mean, and their cross-Gram matrix with the held-out rows. The
#' candidates, the scores, the choice of lambda and sigma and the returned
#' fit (coefficients in feature space, intercepts, path) are the primal
#' path's, to rounding (1e-8 relative or better in the tests), so
#' `predict()`, `summary()` and `saveRDS()` are unchanged; with 4000
#' features a default fit on mtcars, iris or Sonar takes a hundredth of
#' the primal path's time or less (`bench/results/dual-path.md` in
#' kitchen's source repository has the timings).
#' Memory: the `n x D` features (less than one `D x D` matrix of the primal
#' path) and a few `n x n` matrices. Why a third: the dual path's
#' eigendecompositions (with eigenvectors) cost several times more per row
#' than the primal's reduction per feature; with R's `eigen()` on the
#' reference BLAS the two cost about the same near `n = D / 2`
#' (`bench/results/dual-path.md` and `dual-path-rule.md`), and a third keeps
#' the dual path well on the cheaper side. The eigendecompositions run on
#' kitchen's threaded tridiagonal reduction and LAPACK's MRRR for the
#' eigenpairs above rounding level (twice as fast as `eigen()` at 1000 rows
#' on the reference BLAS, `bench/results/dual-eigen.md`), and stop soon
#' after Ctrl-C, as the primal path does. Where kitchen's reduction is not
#' used (`options(kitchen.tridiagonal = "lapack")`, or no AVX2 with an
#' optimised BLAS) they go to R's `eigen()`, which cannot be interrupted,
#' and "auto" then takes the dual path for at most 1000 rows. Where
#' the primal path's own arithmetic is at rounding level, the two differ: at the smallest
#' candidates, with `D` at least `n - 1`, the primal's `D - n + 1` zero
#' eigenvalues come out as rounding noise that adds to the effective degrees
#' of freedom, and its residual sum of squares cancels, so GCV's score
#' there is noise (a cancelled score of 0 chose `lambda` = 1e-9 with 1000
#' features on 600 rows, df 600, where the exact score chooses 0.95). So
#' the primal path leaves unscored (`NaN` in `path$gcv`) the candidates that
#' leave less than half a residual degree of freedom (`n - df < 0.5`) when
#' `D >= n - 1`; the
#' dual path computes the residual without cancellation and leaves those
#' eigenvalues out, and its scores are the exact ones (checked against an
#' SVD in the tests). On the dual path, a single given lambda too small
#' for a Cholesky factorisation gives the minimum-norm interpolating fit
#' instead of an error (the primal path refuses it, naming `lambda`). `options(kitchen.dual = FALSE)` forces the primal path,
#' `TRUE` the dual one whenever the fit allows it (any number of rows);
#' the default is `"auto"`. [rbin()] maps, `solver = "falkon"` and chunked
#' data keep their own paths.
#'
#' With `loss = "logistic"`, a dense map and data in memory, at most half as
#' many rows as features take a dual path too (at most 1000 rows where the
#' eigendecomposition goes to R's `eigen()`, as above): every solution
#' and every step of the solver lies in the span of the rows' features, so
#' the fit is made on the `n x m` matrix `Phi = U S^(1/2)` (from the
#' eigendecomposition `Z Z' = U S U'`, of rank `m`, at most `n`) and mapped back to the
#' `D` coefficients by `Z' U S^(-1/2)`. Lambdas, folds, passes and the
#' solution are the primal's (coefficients to 1e-7 relative, probabilities
#' to rounding in the tests), but each fold and lambda factors an `m x m`
#' bound instead of a `D x D` one, and each pass costs `n m K` instead of
#' `n D K` (iris with 1000 features: 15 to 75 times faster,
#' `bench/results/logistic.md`). `options(kitchen.dual)` applies as above.
#'
#' `sigma` scores several bandwidths: the map's random draws are kept and
#' only rescaled for each candidate (so the score curve is smooth and the
#' map's seed still reproduces the fit), and each candidate costs one pass
#' over the data. With `lambda = "gcv"` (or a vector), each candidate's
#' lambda path is scored by GCV and the (sigma, lambda) pair with the
#' lowest score is kept. With `lambda = "cv"`, scoring every candidate by
#' K-fold CV would cost K reductions of its `D x D` matrix each, so every
#' candidate is first screened by the held-out error of fold 1 over the
#' lambda path (one reduction; `sigma_path` lists these scores), and only
#' the best two get the other K - 1 folds; the one with the lower K-fold CV
#' score is kept, with its lambda. Their CV scores and the fit are exactly
#' those of scoring every candidate in full, and so is the choice whenever
#' the best bandwidth by full CV is among the screen's best two (fold 1
#' alone, a fifth of the rows, can misrank close candidates on small data).
#' [rff()] and [fastfood()] maps of 2048 features or more (outside the
#' rows' span) are screened more cheaply: each candidate's first quarter of
#' frequencies (of blocks for Fastfood, when it has four or more), a
#' smaller map with the same random draws, is cross-validated over all K
#' folds (a sixteenth of a full pass's Gram product and a sixty-fourth of
#' each reduction), and its best two get the full map's pass and K-fold CV;
#' the choice is the full search's whenever its best is among those two.
#' `sigma_path` then lists the smaller map's scores. With only two
#' candidates there is nothing to screen out, so no smaller map is made.
#' `options(kitchen.bandwidth_proxy = n)` sets the size from which maps are
#' screened this way (`Inf`: never).
#'
#' `sigma = "ard"` learns one bandwidth per input column (on the map's
#' rescaled inputs) before the fit: on a random subsample of 4000 training
#' rows (a 32nd of them on larger data, up to 16000) split in two halves, ridge regression on 256 random
#' Fourier features of the map's kernel (their random draws fixed; for
#' [rff()], [fastfood()] and [nystrom()] maps, 256 more per 4000 rows beyond
#' 4000, so that the proxy can follow fine structure that many rows
#' reveal: on CoverType 1024 features on 16000 rows brought the test error
#' at 5000 features from 11.3% to 9.5%) is fitted
#' on each half and scored on the other, and this held-out error is
#' minimised over the log-bandwidths and log-lambda by L-BFGS-B with its
#' exact gradient, from the best isotropic bandwidth. So many parameters
#' learned from few rows can overfit (on Sonar, 60 columns and 150 rows,
#' they made 9 test errors against 7), so the bandwidths are kept only if
#' they beat the map's own bandwidth (for a map named by `features`, the
#' one the defaults choose) by more than one standard error of the paired
#' difference, on training rows the search did not use: up to
#' 2000 more rows when there are at least 1000 beyond the subsample,
#' otherwise five parts of the subsample in turn, each scoring a search on
#' the other four; kept bandwidths are then the geometric mean of those
#' five searches' (the ones the check scored; on the defaults suite's data
#' sets under 5000 rows, worse than the isotropic default by more than 1%
#' in 2 of 55 fits over five map seeds, against 4 with two halves and a
#' search once more on all rows, which [rbin()] maps keep: their
#' Laplacian proxy did worse with the mean).
#' Otherwise the map keeps its bandwidth, and the fit is the one without
#' `sigma = "ard"` (the search leaves R's random stream as it found it);
#' `summary()` says which and shows both held-out errors. With those
#' fresh rows, each column is then left out (its bandwidth set to the
#' search's upper bound) if that does not make their error worse: on the
#' search's own rows an irrelevant column can keep a moderate bandwidth by
#' fitting chance structure. Binning on all rows can use columns that the
#' dense proxy cannot (on CoverType pruning left out the distance to roads
#' on one draw: 3.65% test error against 2.16%), so for [rbin()] maps the
#' overall scale below is searched from the bandwidths both with and
#' without pruning, and fold 1 of the binned fit chooses. On more than
#' 128,000 training rows, [rbin()] maps take instead the geometric mean of
#' the bandwidths of three searches on independent draws of the subsample
#' and the proxy, with no pruning: one search lands far from one draw to
#' the next; after the overall scale below, each of the 12 most relevant
#' groups of columns, most relevant first, then has its bandwidths halved,
#' or else doubled, where that lowers the error on fold 1 of the binned fit
#' (`fit$ard$group_steps`). One-hot columns
#' (adjacent columns of 0s and 1s with exactly one 1 in each row: one
#' categorical variable) share one bandwidth, learned and left out
#' together; `fit$ard$groups` gives each column's group. On CoverType (4
#' wilderness and 40 soil columns) the test error with 5000 random Fourier
#' features was then 8.70% (9.17% before, on another machine), and
#' [rbin()]'s, with the mean of three searches, 2.23-2.47% over five draws
#' of the map (2.16-2.88% with one search), and with the steps 2.02%,
#' 2.14% and 2.03% (map seeds 1, 3 and 5, against 2.25%, 2.39% and
#' 2.47%), each call in 13-14 minutes on 2 cores. A factor's
#' treatment dummies (a formula fit's, whose base level is all zeros) keep
#' one bandwidth each. Kept
#' bandwidths are set in the map (its random draws kept, rescaled) and the
#' fit is made as usual, choosing lambda by `lambda`. With the squared loss
#' and `lambda` not one number, their overall scale is screened first: the
#' learned bandwidths as they are and times \eqn{2^{-1/2}}{2^-1/2} are
#' scored as two `sigma` candidates are (ties to the learned scale;
#' `sigma_path` lists them), since the proxy, with fewer features and rows
#' than the fit, learns them wider than the fit can use (on CoverType with
#' 5000 features, the narrower scale took the test error from 9.5% to 9.2%).
#' Large bandwidths mark
#' columns that matter little: see [relevance()]. For [rbin()] maps the
#' search uses the same dense Fourier proxy of the Laplacian kernel, which
#' learns how the columns' bandwidths compare but not the scale binning
#' fits best on all rows (far narrower bins); so the overall scale of kept
#' ones is then screened as for `sigma = "auto"` (the learned ratios kept),
#' unless `lambda` is one number, and the best must beat the map's own
#' bandwidth on the screen's held-out rows by more than one standard error
#' of the paired difference, as on the proxy: a binned fit can lose what
#' the proxy gained (on Pima, 0.245 test error against 0.224). Otherwise,
#' and when they were dropped, the fit is the one without `sigma = "ard"`
#' (from 2000 rows, with its own screen of the overall scale);
#' `summary()` shows both errors and `sigma_path` marks the map's own
#' bandwidth (`per_column` FALSE). For chunked data, the subsample is read
#' from the first chunks.
#'
#' **Random binning maps** ([rbin()]) have millions of sparse columns, so
#' `Z'Z` is never formed: the ridge system is solved matrix-free by
#' conjugate gradients, preconditioned by the diagonal of `Z'Z`, with the
#' products `Z v` and `Z'u` computed in parallel C++ from each row's bin
#' columns (4 bytes per non-zero; the rows are held that way, never as a
#' feature matrix). Iterations stop when the relative residual is below
#' `tol` or after `max_iter`, with a warning then; `summary()` reports the
#' iterations and residual. There is no eigendecomposition to compute GCV
#' from, so with these maps `lambda = "gcv"`, `"cv"` or a vector of
#' candidates all choose lambda by K-fold cross-validation (each candidate
#' solved by CG, in C++, to a relative residual of `max(tol, 1e-3)` or for
#' at most 50 iterations, warm-started from the previous one, largest lambda
#' first; the path stops once two candidates in a row have not lowered the
#' CV error by 0.1%, and the final fit starts from the mean of the fold
#' solutions); give a single
#' number to skip it. Bandwidth candidates (`sigma`) change the bins, so
#' each one's table of occupied bins is built again from the training rows;
#' each is scored by the held-out error of fold 1 over the lambda path (a
#' screen costing one fold's path, not K). At the best bandwidth, only the
#' lambdas whose fold-1 error is within two standard errors of fold 1's
#' best (the held-out rows' errors compared pairwise; the lambda above the
#' best is scored first when the best came first) get the other K - 1
#' folds, warm-started from fold 1's solution; when no other lambda is that
#' close, fold 1's best is kept and `path` holds fold 1's scores (on large
#' data a fold tells the grid's lambdas, a factor `sqrt(10)` apart, apart:
#' this saves K - 1 solves per lambda). With `sigma = "auto"` the map's bandwidth is halved while
#' that error falls (the median-distance bandwidth of [rbin()] is far wider
#' than binning needs), or doubled if the first halving does worse.
#' `sigma_path` lists the bandwidths screened with their scores. With class
#' labels, the error is the held-out misclassification rate (ties broken by
#' the squared error of the class codes, kept in `path` as `cv_mse`): the
#' squared error keeps favouring lambdas that near-interpolate.
#'
#' **Chunked data** ([chunked()]) are read one chunk at a time, so the data
#' need never fit in memory: each chunk is checked, featurised in blocks and
#' added to the same sufficient statistics, giving the same fit as the bound
#' data in memory (up to rounding; logistic fits, whose iterations sum in
#' another order, only as closely as their iterations converge: see
#' `tol`). `features` is a map ([rff()],
#' [fastfood()] or [rbin()], which take chunked data too, or any map built on
#' a sample such as [read_chunk()]'s) or the name of one, built from the
#' chunks with the defaults above: one more pass over them for the column
#' rescaling and clipping range (two for `"rbin"`), and the default
#' bandwidth chosen as in memory on the rows of the first chunks (up to
#' 4000). `"nystrom"` needs its centers in memory: build that map on a
#' sample. Every bandwidth candidate in `sigma` reads the chunks
#' once more. With an [rbin()] map, each chunk is read once and gives the
#' bin column of each row per grid (4 bytes a row and grid), which the main
#' process holds for the conjugate-gradient iterations (reading the chunks
#' on each of hundreds of iterations would cost far more); the fit equals
#' the in-memory one (with the same folds). Each bandwidth candidate in
#' `sigma` (`"auto"`, a vector, or those scaled after `"ard"`) changes the
#' bins: two more passes find its table of occupied bins and its rows'
#' columns, which the main process holds while it screens it. With
#' `lambda = "cv"`, whole chunks are assigned to folds in turn (chunk `i` to
#' fold `(i - 1) %% n_folds + 1`), so there must be at least `n_folds`
#' chunks, and chunks of no rows must not leave a fold with none; `folds`
#' cannot be given. That is grouped CV: when the chunks differ from each
#' other (rows stored by region or date), a held-out chunk is predicted
#' worse than a held-out row, and a dense fit warns when, at CV's lambda,
#' its error is over 1.2 times GCV's estimate (per unit of weight, where
#' the effective df are at most 5% of the rows) and GCV's own lambda is
#' ten times smaller (CoverType in its file order: lambda 41 against 0.014,
#' 20.5% test error against 18.7%); spread such rows across the chunks at
#' random, unless the groups are meant. When `lambda` is not given, chunked data
#' use CV if the number of chunks is known to be at least `n_folds` (a list
#' or files), else GCV, with a message. The response of chunked data is not
#' rescaled before scoring (its size is only known after the pass).
#'
#' **Chunks in parallel, or on other machines.** With the \pkg{future}
#' package installed and a plan set (`future::plan(multisession)`,
#' `plan(cluster, workers = c("host1", "host2"))`, a scheduler through
#' \pkg{future.batchtools}, ...), each chunk is read and reduced to its
#' partial sums in a future: the worker gets the map (a few numbers) and
#' what reads the chunk (the chunk itself for a list source, the function,
#' or the file path), and sends back only its chunk's `Z'Z`, `Z'y`, sums and
#' response coding, never features. The main process adds them up in chunk
#' order, so the fit is the same whatever the plan and the number of
#' workers. See [chunked()] for the details (`parallel`, threads, memory).
#'
#' A factor `y` is coded one-vs-rest (+1 / -1 columns) and solved by least
#' squares, as in the paper. For `predict(type = "prob")`, a small multinomial
#' logistic model (with a small ridge penalty on its slopes, so that
#' separable scores still give finite coefficients: `2e-3` times their sum
#' of squares about the classes' mean slope, `1e-3 * b^2` for two classes,
#' which does not depend on the order of the levels; `1e-3` times the sum
#' of squares of the K slopes of the vector scaling below) maps the scores to
#' probabilities, fitted on each training
#' row's held-out score at the chosen lambda (the CV folds' fits, or with a
#' given lambda or GCV five interleaved folds, row `i` in fold
#' `(i - 1) %% 5 + 1`, whose statistics a dense map's fit of one bandwidth
#' gathers in its own pass over the data; then one more pass scores the
#' rows; for [rbin()] maps fold solves started from the fit, and from
#' 25,000 rows on fold 1's alone).
#' With [chunked()] data and dense maps, only fits that chose lambda by CV
#' are calibrated: CV's folds (whole chunks) are used, and one more pass
#' over the chunks scores the rows (every `k`-th row, so that about 100,000
#' come back); with GCV or a given lambda, fold statistics would cost one
#' more full pass. `solver = "falkon"` fits are not calibrated.
#' `predict(type = "class")` returns the most probable level, or without
#' probabilities the level with the largest score.
#'
#' @param x Training data: a numeric matrix, a numeric data frame or a
#'   `Matrix::dgCMatrix` (other sparse matrices of package Matrix are taken
#'   as the `dgCMatrix` they equal); chunked data from [chunked()] (then `y` is not
#'   given: each chunk holds its response); or, for the formula method, a
#'   formula.
#' @param y Response: a numeric vector, a numeric matrix (several responses
#'   fitted at once) or a factor (classification).
#' @param features A feature map built on the training data (for example
#'   `rff(x, 1000)`), or the name of one (`"rff"`, `"fastfood"`, `"rbin"`,
#'   `"nystrom"`), built from `x` with the arguments in `...`. Defaults:
#'   for `"rff"` and `"fastfood"`, 1000 features, `scale = "minmax"` and a
#'   bandwidth chosen on a subsample (see "What the defaults do"); for
#'   `"rbin"`, 100 grids and [rbin()]'s own defaults (`scale = "minmax"`);
#'   for `"nystrom"`, `min(1000, nrow(x))` centers and [nystrom()]'s own
#'   defaults (`scale = "standard"`, the median-distance bandwidth).
#' @param lambda `"cv"` (the default: 5-fold cross-validation over 50
#'   candidates), `"gcv"` (generalised cross-validation, one decomposition,
#'   cheaper but prone to under-penalising, see Details), a positive number,
#'   or a vector of non-negative candidates scored by GCV (by K-fold CV with
#'   `loss = "logistic"` and [rbin()] maps, which have no GCV).
#' @param loss `"squared"` (ridge regression; classes coded +1 / -1, one
#'   column per class) or `"logistic"` for a factor `y`: kernel logistic
#'   regression (binary, or multinomial with more than two classes),
#'   minimising `sum(w * -log(p[y])) + lambda * ||beta||^2` by
#'   limited-memory BFGS preconditioned by Boehning's (1992) bound: the
#'   Hessian is bounded by a fixed multiple of `Z'WZ`, read in one pass like
#'   the least-squares statistics and factored once per lambda, and each
#'   trial point then needs one pass for the gradient (features and
#'   `Z'W(Y - P)`, all classes at once); the feature matrix is never held.
#'   With the features in memory, a warm-started solve (the lambda path,
#'   the final fit after CV) is preconditioned by the curvature at its
#'   start instead (one weighted `Z'Z`), which takes a fraction of the
#'   passes once the rows are fitted with confidence.
#'   `lambda` is then chosen by K-fold CV of the held-out log-loss (largest
#'   candidate first, each fold warm-started where its solutions at the two
#'   previous candidates point, in log lambda; the path stops two candidates
#'   past the best, or one past it when every fold's held-out loss rose
#'   there), unless one number is given;
#'   `predict(type = "prob")` gives class probabilities. The features of
#'   all rows are kept in memory when they take at most 2^25 numbers (256
#'   MB, and a fold's copy of up to as much during CV; for data in memory
#'   also when `n` is at most D plus `block_size`), on [chunked()] data too
#'   (one more read after the statistics pass);
#'   otherwise each pass computes them again, reading the chunks (as
#'   futures under a plan), several times slower
#'   (`bench/results/logistic.md`).
#'   `options(kitchen.logistic_kept_entries = n)` sets that limit (in
#'   numbers, 8 bytes each). CV folds of chunked data are whole chunks.
#'   For [rbin()] maps (in memory or chunked), whose
#'   `Z'WZ` is never formed, the objective is minimised by Newton's method
#'   instead: each step solves its system matrix-free by conjugate
#'   gradients on the bin columns (the intercepts eliminated, all classes
#'   at once, starting from the previous step), to a relative residual
#'   that tightens as the objective settles, with step halving; `tol` is
#'   then the relative decrease the last Newton step predicts, and
#'   `max_iter` caps each step's CG iterations (at most 100 steps). Bandwidth
#'   candidates are screened on fold 1 as for least squares.
#' @param n_folds Number of folds for `lambda = "cv"`; rows are assigned to
#'   folds at random (use [set.seed()] to reproduce, or give the map built by
#'   name a `seed`: the folds are drawn under it), unless `folds` is given.
#'   For classes the folds are stratified: each class's rows are dealt to the
#'   folds in turn, the classes in the order they first appear in the rows
#'   (so reordering the levels of `y` changes neither the folds nor the
#'   fit), so that every class of two rows or more has training rows in each
#'   fold's fit.
#' @param folds Optional fold number of each row, for `lambda = "cv"` (for
#'   the formula method, an expression evaluated in `data`, whose rows
#'   `subset` and `na.action` drop with the others, as for `weights`).
#' @param sigma `NULL` to keep the map's bandwidth (for an rff or Fastfood
#'   map named by `features`, the one chosen on a subsample, see "What the
#'   defaults do"; Nystroem maps named by `features` keep their
#'   median-distance bandwidth, rbin maps below 2,000 rows too, from 2,000
#'   rows on they are searched as with `"auto"`); a vector of candidate
#'   bandwidths; or `"auto"` for the map's bandwidth times 1/4, 1/2, 1, 2
#'   and 4 (for [rbin()] maps: halvings of it while they score better, see
#'   Details). With `lambda = "cv"`, the candidates of rff, Fastfood and
#'   Nystroem maps are screened on fold 1 and the best two cross-validated
#'   in full (see Details). Needs `lambda = "gcv"`, `"cv"` or a vector of
#'   candidates. Or
#'   `"ard"` to learn one bandwidth per input column from the training rows
#'   (automatic relevance determination; any map, see Details and
#'   [relevance()]).
#' @inheritParams kitchen_threads
#' @param verbose Show progress bars while the data are read, and over the
#'   long steps between passes: the bandwidth candidates, the CV folds and
#'   the calibration's fold fits. cli draws a bar only once it has run for
#'   two seconds (`options(cli.progress_show_after)`), so quick fits show
#'   none.
#' @param block_size Rows featurised at a time; memory use is about
#'   `block_size * n_features * 8` bytes. Results do not depend on it beyond
#'   rounding.
#' @param parallel For chunked data only: `"auto"` (the default) processes
#'   the chunks as futures when a [future][future::plan] plan other than
#'   sequential is set, and in this process otherwise (no plan, or
#'   `plan(sequential)`, or \pkg{future} not installed); `"future"` always
#'   uses futures (under `plan(sequential)` they run in this process);
#'   `"none"` never does.
#' @param solver `"direct"` (the default: the normal equations `Z'Z`, read
#'   block by block, then decomposed) or `"falkon"`, for [nystrom()] maps
#'   with many centers (say `M` above a few thousand) and one positive
#'   `lambda`, data in memory: FALKON's preconditioned conjugate gradients
#'   (Rudi, Carratino and Rosasco, 2017), which never form the `n x M`
#'   features nor `Z'Z`. Each iteration computes the kernel values of the
#'   rows with the centers again, block by block over threads (`n M d`
#'   operations); the preconditioner `(n / M) K_CC + lambda I` is factored
#'   once by Cholesky. The solution is the direct one to the relative
#'   residual `tol` (usually in 10 to 50 iterations); it stops at `max_iter`
#'   with a warning. GCV, CV, bandwidth candidates, the logistic loss and
#'   chunked data need `"direct"`. Not chosen automatically: the two differ
#'   by the solver's tolerance, and which is faster depends on `n`, `M`, `d`
#'   and the BLAS (see `bench/results/nystrom-falkon.md` and
#'   `nystrom-falkon-M10000.md`). Memory: besides the data, two `M x M`
#'   matrices, the map's `K_CC^(-1/2)` and the preconditioner's factor
#'   (1.6 GB at `M = 10000`, 6.4 GB at 20,000, 40 GB at 50,000); building
#'   the map needs up to four (see [nystrom()]).
#' @param tol,max_iter Relative residual at which conjugate gradients stop,
#'   and their iteration cap, for [rbin()] maps (in memory or chunked) and
#'   `solver = "falkon"`; with `loss = "logistic"`,
#'   the relative change of the objective between steps at which the
#'   solver stops, and its cap on passes over the data (the CV folds' solves
#'   stop at `max(tol, 1e-5)` and 200 passes: held-out scores need less
#'   precision than the final fit; with the features kept in memory they
#'   also run on the features and preconditioner rounded to single
#'   precision, with every sum in double, which halves the memory each pass
#'   reads; the final fit is in double). `tol = NULL` is
#'   `1e-5` for least squares on [rbin()] maps, `1e-6` otherwise.
#' @param ... Arguments for the map constructor when `features` is a name.
#' @return An object of class `kitchen_krr`: a plain list with the map,
#'   `coefficients` (a `n_features x k` matrix), `intercept`, `lambda`, the
#'   candidates with their scores (`path`), response information, training
#'   figures, timings, the conjugate-gradient report for [rbin()] maps
#'   (`solver`), the seed of a map built by name (`seed`, given or drawn;
#'   NULL for a given map) and the call. It can be saved with [saveRDS()].
#' @seealso [predict.kitchen_krr()], [rff()], [fastfood()], [rbin()], [chunked()].
#' @export
#' @examples
#' set.seed(1)
#' x <- matrix(runif(2000 * 2, -3, 3), 2000, 2)
#' y <- sin(x[, 1]) * cos(x[, 2]) + rnorm(2000, sd = 0.1)
#' fit <- krr_fit(x, y, rff(x, 300, sigma = 1, seed = 1), n_threads = 2)
#' fit
#' sqrt(mean((predict(fit, x) - y)^2))
#'
#' # Classification, with the formula interface
#' fit <- krr_fit(Species ~ ., iris, features = "rff", n_features = 200,
#'                seed = 1, n_threads = 2)
#' table(predict(fit, iris, type = "class"), iris$Species)
krr_fit <- function(x, ...) UseMethod("krr_fit")

#' @rdname krr_fit
#' @export
krr_fit.default <- function(x, y, features = "rff", lambda = "cv", sigma = NULL,
                            weights = NULL, loss = c("squared", "logistic"), n_folds = 5,
                            folds = NULL, n_threads = NULL, verbose = interactive(),
                            block_size = 4096, tol = NULL, max_iter = 1000,
                            solver = c("direct", "falkon"), ...) {
  call <- fit_call(match.call())
  rlang::check_required(y)
  x <- as_data_matrix(x, allow_sparse = TRUE)
  check_column_names(colnames(x), "x", rlang::current_env())  # kept to match predict()'s columns
  weights <- check_weights(weights, nrow(x))
  response <- krr_response(y, nrow(x), weights)
  loss <- match_choice(loss, c("squared", "logistic"))
  y_scale <- response_scale(response$y)   # 1 for class codes
  response$y <- response$y / y_scale
  shifted <- shifted_response(response$y, weights, response$type == "class")
  response$y <- shifted$y
  check_lambda(lambda)
  check_flag(verbose)
  check_count(block_size)
  if (!is.null(tol)) check_positive(tol)
  check_count(max_iter)
  solver <- match_choice(solver, krr_solvers)
  backend <- with_progress(backend_settings(n_threads), verbose)  # resolved once, passed down
  if (!is.null(folds) && !missing(n_folds)) {
    cli::cli_warn("{.arg n_folds} is not used: {.arg folds} gives the folds.")
  }
  map_args <- map_seed_drawn(features, list(...))
  fit_seed <- map_args$seed  # given or drawn: it drives every random step of the fit
  # Rows weighted 0 take no part in the map, the searches or the folds
  # either: the fit is the one without them (R/krr_formula.R, weights).
  kept <- weighted_rows(weights)
  weighted <- list(x = rows_of(x, kept), y = rows_of(response$y, kept), w = rows_of(weights, kept))
  map <- do.call(krr_features, c(list(features, weighted$x), map_args))
  if (solver == "falkon") check_falkon_fit(map, lambda, sigma, loss)  # R/krr_falkon.R
  ard <- NULL
  if ((is.null(sigma) || identical(sigma, "ard")) && bandwidth_left_to_krr_fit(features, map, ...)) {
    # The map's seed also drives the search: the stream is left alone.
    # With "ard", this is the isotropic bandwidth that per-column ones must beat.
    map <- with_seed(map_args$seed,
                     default_bandwidth_map(map, weighted$x, weighted$y, weighted$w,
                                           backend))  # R/default_bandwidth.R
  }
  binned <- inherits(map, "kitchen_rbin")
  # (with "ard": whether the fit without it would search, for a fallback to that fit)
  searched_by_default <- nrow(weighted$x) >= binned_search_rows &&
    binned_search_by_default(if (identical(sigma, "ard")) NULL else sigma, features, map, ...,
                             loss = loss, lambda = lambda)  # R/krr_binned_search.R
  if (searched_by_default && is.null(sigma)) sigma <- "auto"
  tol <- tol %||% default_tol(binned && loss == "squared" && solver == "direct")  # R/krr_binned.R
  isotropic <- NULL
  if (identical(sigma, "ard")) {
    # under the map's seed too: the same call and seed, the same fit
    ard <- with_stream_restored(with_seed(derived_seed(fit_seed),
                                          ard_map(map, weighted$x, weighted$y, weighted$w,
                                                  backend)))  # R/ard.R
    # Dropped per-column bandwidths leave the fit as it is without "ard".
    sigma <- if (searched_by_default && !isTRUE(ard$report$kept)) "auto" else NULL
    # Binning: the dense proxy learns how the columns' bandwidths compare,
    # not the pitch scale that binning on all rows fits best (far narrower
    # bins: R/krr_binned_search.R), which is then screened as for "auto",
    # against the map with its one bandwidth (and if that wins, the fit
    # without "ard").
    if (binned && isTRUE(ard$report$kept) && loss == "squared" &&
        !(is.numeric(lambda) && length(lambda) == 1)) {
      isotropic <- map
    }
    map <- ard$map
  }
  note_sigma_candidates(sigma, map$d)
  sigmas <- if (!is.null(ard) && !binned) ard_scale_candidates(ard, map, lambda, loss) else
    bandwidth_candidates(sigma, map, lambda)  # (R/ard.R)
  logistic <- loss == "logistic"
  if (logistic) check_logistic(response, map)
  given_columns <- colnames(x)
  # Checked above; matched to the map's columns and clipped once here: the
  # passes below and the fitted values take these rows as they are.
  x <- map_input(map, x, arg = "x", checked = TRUE)
  warn_unused_columns(given_columns, map$col_names)  # (a missing one was an error)
  # Sparse maps have no eigendecomposition, and the logistic loss no GCV:
  # every lambda choice is by CV.
  note_cv_for_gcv(lambda, binned, logistic, n_folds)  # R/default_lambda.R
  by_cv <- identical(lambda, "cv") ||
    ((binned || logistic) && !(is.numeric(lambda) && length(lambda) == 1))
  # The map's seed fixes the folds too: the same call and seed, the same fit.
  fold_seed <- if (is.null(folds)) fit_seed
  strata <- if (response$type == "class") max.col(response$y, "first")  # folds by class
  folds <- if (by_cv) with_seed(derived_seed(fold_seed), krr_folds(folds, nrow(x), n_folds, kept, strata))
  # Class probabilities are calibrated on held-out scores (class_calibration(),
  # R/calibration.R), whose fold fits need each fold's statistics: without CV
  # folds, a fit of one bandwidth gathers those of calibration_folds() in its
  # one pass over the rows, rather than a second pass for them (at D = 4096
  # with 26 classes, a quarter of the fit's time).
  calibration_in_pass <- is.null(folds) && response$type == "class" && !logistic && !binned &&
    solver == "direct" && length(sigmas) == 1
  pass_folds <- if (calibration_in_pass) calibration_folds(nrow(x)) else folds
  # Far fewer rows than features: n x n algebra on the held features
  # (R/krr_dual.R), the same fit.
  dual <- !logistic && !binned && dual_path_chosen(map, nrow(x), solver)
  # The dual paths hold the n x D features and n x n matrices, never Z'Z:
  # the size cap is on those
  dual_logistic <- logistic && !binned && logistic_dual_chosen(map, nrow(x))  # R/krr_logistic_dual.R
  if (!binned) check_gram_size(map$n_features, features, rows = if (dual || dual_logistic) nrow(x))
  need <- fit_memory_need(map, features, nrow(x), dual, if (!is.null(pass_folds)) max(pass_folds),
                          length(sigmas), response$type != "class")  # R/fit_memory.R
  if (!logistic && !binned && solver == "direct") check_fit_memory(need)

  started <- proc.time()[["elapsed"]]
  if (logistic && binned) {
    search <- binned_logistic_search(map, memory_bins(x, backend), max.col(response$y, "first"),
                                     response$levels,
                                     if (identical(sigma, "auto")) "auto" else sigmas, lambda,
                                     folds, weights, tol, max_iter, backend, verbose)  # R/krr_binned_logistic.R
  } else if (logistic) {
    search <- logistic_search(map, sigmas, function(candidate) {
      memory_logistic_source(candidate, x, response$y, weights, folds, block_size, backend)
    }, response$levels, lambda, if (!is.null(folds)) max(folds), tol, max_iter, verbose)
  } else if (solver == "falkon") {
    search <- falkon_search(map, x, response$y, weights, lambda, tol, max_iter, backend)
  } else if (binned) {
    search <- binned_bandwidth_search(map, memory_bins(x, backend), response$y,
                                      if (identical(sigma, "auto") || !is.null(isotropic)) "auto" else sigmas,
                                      lambda, folds, tol, max_iter, backend, verbose, weights,
                                      classify = response$type == "class",
                                      baseline = isotropic,
                                      starts = if (!is.null(isotropic)) binned_ard_starts(ard),
                                      groups = if (!is.null(isotropic)) binned_ard_groups(ard),
                                      baseline_auto = searched_by_default)  # R/krr_binned_search.R
  } else {
    search <- with_memory_hint(krr_bandwidth_search(map, sigmas, lambda, function(candidate) {
      if (dual) return(dual_statistics(candidate, x, response$y, backend, folds, weights))
      krr_statistics(candidate, x, response$y, block_size, backend, verbose, pass_folds, weights)
    }, backend, primal = !dual), need)
  }
  search <- unscale_search(unshift_search(search, shifted$shift), y_scale)  # R/response_scale.R
  if (!is.null(isotropic)) ard$report <- binned_ard_verdict(ard$report, search, folds)  # R/ard.R
  fit <- warn_if_interpolating(new_krr_fit(search, folds, response, nrow(x), colnames(x),
                                           started, call), search$solution$effective_df)
  fit$ard <- ard$report
  fit$seed <- fit_seed
  if (isTRUE(search$solution$dual)) fit$dual <- TRUE  # for summary()
  fit$loss <- loss
  fit$logistic <- search$solution$logistic
  fit$weights <- weights
  fit$fitted.values <- search$solution$fitted %||%
    predict_rows(fit, x, backend, block_size, verbose, "Fitted values")
  # named as predict_rows() names them (rbin and logistic solutions are not)
  # rows named by x, else by a named vector y (as lm() names them)
  fitted_names <- list(rownames(x) %||% if (is.null(dim(y))) names(y), fit$response$names)
  if (!all(vapply(fitted_names, is.null, TRUE))) dimnames(fit$fitted.values) <- fitted_names
  if (logistic) {
    fit$fitted.values <- softmax_rows(fit$fitted.values)
    indicators <- (response$y + 1) / 2
    fit$training_rmse <- sqrt(colSums((weights %||% 1) * (indicators - fit$fitted.values)^2) /
                                fit$total_weight)
  }
  if (!logistic && response$type == "class") {
    # For predict(type = "prob"): R/calibration.R.
    fit$uncalibrated <- calibration_problem(
      fold_class_weights(response$y, weights, folds %||% calibration_folds(nrow(x))),
      response$levels, call)
    fit$calibration <- if (!is.null(fit$uncalibrated)) NULL else if (binned) {
      calibration_of_scores(search$solution$held_out_scores, response$y, weights, backend)
    } else if (solver == "direct") {
      class_calibration(fit$map, map_input(fit$map, x, arg = "x"), response$y, weights,
                        search$stats, pass_folds, fit$lambda, block_size, backend)
    }
  }
  fit$y <- y
  fit
}

# The call as update() and print() want it: krr_fit(...), not the method.
fit_call <- function(call) {
  call[[1L]] <- as.name("krr_fit")
  call
}

# The kitchen_krr object, from the search result and what describes the data.
new_krr_fit <- function(search, folds, response, n, col_names, started, call) {
  solution <- search$solution
  solved <- proc.time()[["elapsed"]]
  structure(list(
    map = search$map,
    coefficients = solution$coefficients,
    intercept = solution$intercept,
    lambda = solution$lambda,
    path = solution$path,
    sigma_path = search$sigma_path,
    n_folds = if (!is.null(folds)) max(folds),
    # `ordered` only for an ordered factor: predict(type = "class") keeps it
    response = c(response[c("type", "levels", "names", "weighted")],
                 if (isTRUE(response$ordered)) list(ordered = TRUE),
                 # levels of a factor's classes without rows too (predicted_levels())
                 if (!identical(response$factor_levels, response$levels))
                   list(factor_levels = response$factor_levels)),
    n = n,
    total_weight = search$stats$n %||% solution$total_weight,
    training_rmse = solution$training_rmse,
    solver = solution$solver,
    time = c(features_and_gram = search$read, solve = solved - started - search$read),
    col_names = col_names,
    call = call
  ), class = "kitchen_krr")
}

# Z'Z is a dense D x D matrix (plus copies while solving): refused up front,
# with the memory it would need, past max_dense_entries (as kernel_matrix()).
# On the dual path (`rows` given: R/krr_dual.R) the fit holds the n x D
# features instead. The error names what the user set: n_features for a map
# built by name (`features` a name), else the map given as `features`.
check_gram_size <- function(n_features, features, rows = NULL, call = rlang::caller_env()) {
  entries <- as.double(n_features) * if (is.null(rows)) n_features else rows
  if (entries > max_dense_entries) {
    what <- if (is.character(features)) "{.arg n_features} is {n_features}" else
      "{.arg features} has {n_features} features"
    held <- if (is.null(rows)) "Z'Z" else "the {format_count(rows)} rows' features"
    abort_arg(c(paste0(what, ": ", held, " would need {gigabytes(entries)} GB (more than 2^31 - 1 entries)."),
                i = if (is.null(rows)) "Use fewer features, or {.fn rbin}, whose fits never form Z'Z." else
                  "Use fewer features or rows, or {.fn rbin}, whose fits never hold them."),
              call = call)
  }
}

check_lambda <- function(lambda, call = rlang::caller_env()) {
  if (identical(lambda, "gcv") || identical(lambda, "cv")) return(invisible(lambda))
  if (!is.numeric(lambda) || length(lambda) < 1 || anyNA(lambda) ||
      any(!is.finite(lambda)) || any(lambda < 0) ||
      (length(lambda) == 1 && lambda <= 0)) {
    abort_arg("{.arg lambda} must be {.val gcv}, {.val cv}, a positive number or a vector of non-negative numbers.",
              call = call)
  }
  invisible(lambda)
}

# A numeric `sigma` of krr_fit() holds bandwidth candidates; one of as many
# numbers as input columns may have been meant as per-column bandwidths,
# which belong to the map (rff(x, sigma = <vector>)). Said once per session.
note_sigma_candidates <- function(sigma, d) {
  if (!is.numeric(sigma) || length(sigma) < 2 || length(sigma) != d) return(invisible())
  cli::cli_inform(c(
    "i" = "{.arg sigma} holds {length(sigma)} bandwidth candidates for {.fn krr_fit} to choose from, one bandwidth each.",
    " " = "Per-column bandwidths go to the map ({.code rff(x, sigma = <one per column>)}); {.code sigma = \"ard\"} learns them."),
    .frequency = "once", .frequency_id = "kitchen_sigma_candidates")
}

# The bandwidths to try: list(NULL) to keep the map's own.
bandwidth_candidates <- function(sigma, map, lambda, call = rlang::caller_env()) {
  if (is.null(sigma)) return(list(NULL))
  if (identical(sigma, "auto") && length(map$kernel$sigma) > 1L) {
    abort_arg(c("{.code sigma = \"auto\"} scales one bandwidth, but {.arg features} has one per column.",
                i = "Use {.code sigma = NULL} to keep them, or {.code sigma = \"ard\"} to learn them again."),
              call = call)
  }
  if (identical(sigma, "auto")) {
    sigma <- map$kernel$sigma * 2^(-2:2)
  } else if (!is.numeric(sigma) || length(sigma) < 1 || anyNA(sigma) ||
             any(!is.finite(sigma)) || any(sigma <= 0)) {
    abort_arg("{.arg sigma} must be {.code NULL}, {.val auto}, {.val ard} or a vector of positive numbers.",
              call = call)
  }
  if (length(sigma) > 1 && is.numeric(lambda) && length(lambda) == 1) {
    abort_arg("Several {.arg sigma} candidates are scored with lambda: {.arg lambda} must be {.val gcv}, {.val cv} or a vector, not one number.",
              call = call)
  }
  as.list(as.numeric(sigma))
}

# The same map with another bandwidth: the random draws are kept, rescaled.
# (A fastfood map applies 1 / sigma when it computes features.)
rescale_bandwidth <- function(map, sigma, call = rlang::caller_env()) {
  if (inherits(map, "kitchen_rff")) {
    map$projection <- map$projection * (map$kernel$sigma / sigma)
  } else if (inherits(map, "kitchen_nystrom")) {
    return(nystrom_with_bandwidth(map, sigma))
  } else if (!inherits(map, "kitchen_fastfood")) {
    abort_arg("Choosing {.arg sigma} in {.fn krr_fit} is not available for {.cls {class(map)[1]}} maps.",
              call = call)
  }
  map$kernel$sigma <- sigma
  map
}

# Training columns that a given map does not use are left out of the fit,
# as predict() leaves them out of new data; a formula's predictors or x's
# columns left out are rarely meant, so the fit says so.
warn_unused_columns <- function(names, map_names, call = rlang::caller_env()) {
  unused <- setdiff(names, map_names)
  if (is.null(map_names) || !length(unused)) return(invisible())
  cli::cli_warn(c("The map does not use {cli::qty(length(unused))}column{?s} {.val {unused}} of the training data: the fit leaves {?it/them} out.",
                  i = "Build the map on all the columns to use them (or drop them from {.arg x} or the formula)."),
                call = call)
}

# The map to fit with: given, or built from x by name.
krr_features <- function(features, x, ..., call = rlang::caller_env()) {
  if (inherits(features, "kitchen_map")) {
    if (length(Filter(Negate(is.null), list(...)))) {  # NULL: a wrapper's "not given"
      abort_arg("Arguments in {.arg ...} are for building a map by name; {.arg features} is already a map.",
                call = call)
    }
    return(validate_map(features, arg = "features", deep = TRUE, call = call))
  }
  builders <- c("rff", "fastfood", "rbin", "nystrom")
  available <- builders[vapply(builders, exists, TRUE, envir = asNamespace("kitchen"), inherits = FALSE)]
  if (!is.character(features) || length(features) != 1L || !features %in% available) {
    abort_arg("{.arg features} must be a feature map or one of {.or {.val {available}}}.", call = call)
  }
  args <- list(...)
  check_builder_args(features, args, call)
  if (features == "rbin") {
    if (is.null(args$n_grids)) args$n_grids <- 100
  } else if (features == "nystrom") {
    if (is.null(args$n_centers)) args$n_centers <- min(1000, NROW(x))
  } else {
    if (is.null(args$n_features)) args$n_features <- 1000
    # Each column's training range onto [-1, 1] (see "What the defaults do").
    if (is.null(args$scale)) args$scale <- "minmax"
  }
  # The builder's argument errors are krr_fit()'s: its `...` went there (called
  # through do.call(), the builder's own frame would print as no call at all).
  tryCatch(do.call(get(features, envir = asNamespace("kitchen")), c(list(x), args)),
           kitchen_error_argument = function(cnd) {
             # (its parent too: a bad chunk's error says what was wrong with it)
             rlang::abort(cnd$message, body = cnd$body, class = "kitchen_error_argument",
                          call = call, parent = cnd$parent, use_cli_format = TRUE)
           })
}

# The arguments of a map built by name, with a seed drawn from R's stream
# (one number) when none is given. The map's draws, the bandwidth searches
# and the folds then run under that seed, as with a given one: the fit keeps
# it (`fit$seed`), so that it can be made again from the saved object, and
# neither the folds nor the search's rows and frequencies depend on the
# number of features, so fits with 1000 and 4000 features differ only by
# their maps (before, on mtcars's 24 rows, each size had its own folds and
# its own bandwidth).
map_seed_drawn <- function(features, args) {
  if (is.character(features) && is.null(args$seed)) {
    args$seed <- sample.int(.Machine$integer.max, 1L)
  }
  args
}

# Whether krr_fit() chooses the bandwidth of the map: a map of one of
# `kinds` (rff or fastfood; rbin: R/krr_binned_search.R) it built by name,
# with no kernel object (carrying its own sigma) in `...`. A given map keeps
# its bandwidth.
bandwidth_left_to_krr_fit <- function(features, map, ...,
                                      kinds = c("kitchen_rff", "kitchen_fastfood")) {
  is.character(features) && inherits(map, kinds) && !inherits(list(...)$kernel, "kitchen_kernel")
}

# Arguments in `...` must be the map constructor's or its kernel's (`nu`):
# anything else is named as an argument krr_fit() does not know, not as a
# kernel parameter.
check_builder_args <- function(features, args, call) {
  builder <- get(features, envir = asNamespace("kitchen"))
  known <- c(setdiff(names(formals(builder)), c("x", "...")),
             unlist(lapply(kernel_names(), function(k) names(formals(get(paste0("kernel_", k)))))))
  unknown <- setdiff(names(args), known)
  if (is.null(names(args)) && length(args) || any(names(args) == "")) {
    abort_arg("Arguments in {.arg ...} must be named (arguments of {.fn {features}}).", call = call)
  }
  if (length(unknown)) {
    # another map's size (update(fit, features = "rbin") of an rff fit)
    size <- c(rff = "n_features", fastfood = "n_features", rbin = "n_grids",
              nystrom = "n_centers")
    own <- size[[features]]
    other <- intersect(unknown, setdiff(size, own))
    abort_arg(c("{.fn krr_fit} has no argument{?s} {.arg {unknown}}.",
                i = "{.arg ...} takes the arguments of {.fn {features}} and of its kernel.",
                i = if (length(other)) "{.fn {features}} takes its size as {.arg {own}}, not {.arg {other}}."),
              call = call)
  }
}
