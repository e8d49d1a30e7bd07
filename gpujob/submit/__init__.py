"""The one submit path, in explicit steps: check -> request -> build -> stage -> send -> follow
(``send.run``), over a plan of choices (``failover.Plan``; one for a plain submit) that can
create the job again after it started. ``commands.submit`` and ``commands.preflight`` call it;
it imports no command."""
