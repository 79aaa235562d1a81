"""`mpimatch bench`: run a suite of workloads through the engines, and report.

  core      plan the runs of a suite, run them (mpimatch-replay), collect the records
  suites    the suites: quick, default, paper
  clusters  the kmeans engine's cluster files a bench run writes first
  output    JSON, CSV and the terminal tables
  plots     the PNG plots (matplotlib, loaded only when a bench runs)
  html      the self-contained report.html
  cli       the `mpimatch bench` subcommand
"""
