"""What each command does: ``execute(settings)`` per command, after the command line
(``gpujob.cli``)
has resolved its settings."""
