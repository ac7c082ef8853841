# A user interrupt (SIGINT, as Ctrl-C sends) sent to a child R process
# running `code`, `warm_up` seconds after it started (or, with `ready`, after
# it printed its first line: the set-up before the long call is done).
# Returns the seconds from the signal until the child stopped: NA when it had
# already finished (or failed) before the signal, Inf when it did not stop
# within 30 s.
interrupt_delay <- function(code, warm_up = 2, ready = FALSE) {
  child <- processx::process$new(
    file.path(R.home("bin"), "Rscript"), c("-e", code),
    stdout = "|", stderr = "|",
    # the child must find the kitchen being tested (under R CMD check, in its own library)
    env = c("current", R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep),
            KITCHEN_NUM_THREADS = "2"))
  on.exit(if (child$is_alive()) child$kill())
  if (ready) child$poll_io(60000)
  Sys.sleep(warm_up)
  if (!child$is_alive()) return(NA_real_)
  started <- Sys.time()
  child$signal(2L)  # SIGINT
  child$wait(timeout = 30000)
  if (child$is_alive()) return(Inf)
  as.numeric(difftime(Sys.time(), started, units = "secs"))
}
