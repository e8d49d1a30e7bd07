"""The example trainer started by a plain ``torchrun -m trainer.task``, as a pod's command would
start it on GKE (the package job's module execs it)."""
