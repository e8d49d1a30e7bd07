"""AI Platform Training's rules over a Job config: the cluster, its GPUs and TPUs, what it runs,
a tuning study, where it runs and what a submit needs."""
