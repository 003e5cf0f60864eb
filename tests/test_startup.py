"""Stop signals held while the command starts (``pmparse.startup``); the process as a whole is
tested in test_entry.py."""

import signal

from pmparse import startup


def test_hand_over_puts_back_the_dispositions_and_keeps_an_ignored_signal_ignored():
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        startup.hold()
        assert signal.getsignal(signal.SIGINT) is not before[signal.SIGINT]
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert startup.hand_over() is None
        assert signal.getsignal(signal.SIGINT) is before[signal.SIGINT]
        assert signal.getsignal(signal.SIGTERM) is before[signal.SIGTERM]
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert startup.hand_over() is None  # a second call (a command run inside a command) does nothing
    finally:
        for signum, previous in before.items():
            signal.signal(signum, previous)
