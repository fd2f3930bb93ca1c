# Mimics nixpkgs' build-support/alternatives/blas: a wrapper whose provider is
# chosen with `blas.override { blasProvider = ...; }`. No `...`: unknown
# override arguments fail.
{
  lib,
  stdenv,
  lapack-reference,
  openblas,
  isILP64 ? false,
  blasProvider ? openblas,
}:
stdenv.mkDerivation {
  pname = "blas";
  version = "3";
  passthru = {
    inherit isILP64;
    provider = blasProvider;
    implementation = blasProvider.pname or "unknown";
  };
  meta = {
    description = "BLAS with definable provider (${blasProvider.pname or "unknown"})";
    license = lib.licenses.bsd3;
    platforms = lib.platforms.all;
  };
}
