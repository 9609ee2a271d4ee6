"""The host tester of Linux's memory init: its build and its runs."""
