"""A trainer started by a plain ``torchrun`` (no flags): it reads the PET_* variables the service
sets, for the local-run test of GKE's launcher variables."""
