"""Running a job on this machine: one process per replica, each seeing what the service says its
replicas see (the service's ``local_env``). Service-agnostic."""
