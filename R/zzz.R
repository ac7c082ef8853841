# Registrations with packages kitchen suggests, made only when they are
# there: the kernel_ridge() model in parsnip's model environment, now if
# parsnip is loaded, else whenever it loads later. (The generics methods of
# R/broom.R need nothing here: R registers S3method(generics::tidy, ...)
# itself when generics loads.)
.onLoad <- function(libname, pkgname) {
  if (isNamespaceLoaded("parsnip")) register_kernel_ridge()
  setHook(packageEvent("parsnip", "onLoad"), function(...) register_kernel_ridge())
}
