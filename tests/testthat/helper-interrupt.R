# A user interrupt (SIGINT, as Ctrl-C sends) sent to a child R process
# running `code`, `warm_up` seconds after it started (or, with `ready`, after
# it printed its first line to stdout: the set-up before the long call is
# done). Returns the seconds from the signal until the child stopped: NA when
# it had already finished (or failed) before the signal, Inf when it did not
# stop within 30 s.
#
# `code` runs inside invisible(), and the child's output is read all along:
# a 3000 x 20,000 result auto-printed into a pipe nobody read once filled the
# pipe, and the child, blocked in write() (where SIGINT does not end it),
# was still alive 30 s after the signal: a false Inf, where the call had in
# fact finished before the signal (NA).
interrupt_delay <- function(code, warm_up = 2, ready = FALSE) {
  child <- processx::process$new(
    file.path(R.home("bin"), "Rscript"), c("-e", paste0("invisible({", code, "})")),
    stdout = "|", stderr = "|",
    # the child must find the kitchen being tested (under R CMD check, in its own library)
    env = c("current", R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep),
            KITCHEN_NUM_THREADS = "2"))
  on.exit(if (child$is_alive()) child$kill())
  if (ready) follow_child(child, 60, until_output = TRUE)
  follow_child(child, warm_up)
  if (!child$is_alive()) return(NA_real_)
  started <- Sys.time()
  child$signal(2L)  # SIGINT
  follow_child(child, 30)
  if (child$is_alive()) return(Inf)
  as.numeric(difftime(Sys.time(), started, units = "secs"))
}

# Reads (and drops) the child's stdout and stderr for `seconds`, or until it
# has ended, or with `until_output` until it has written to stdout.
follow_child <- function(child, seconds, until_output = FALSE) {
  deadline <- Sys.time() + seconds
  repeat {
    left <- as.numeric(difftime(deadline, Sys.time(), units = "secs"))
    if (left <= 0 || !child$is_alive()) return(invisible())
    status <- child$poll_io(max(1L, as.integer(min(left, 0.1) * 1000)))
    out <- if (status[["output"]] == "ready") child$read_output() else ""
    if (status[["error"]] == "ready") child$read_error()
    if (until_output && nzchar(out)) return(invisible())
    # both pipes closed: the child is exiting; poll_io would not wait
    if (all(status[c("output", "error")] %in% c("eof", "closed"))) Sys.sleep(0.005)
  }
}
