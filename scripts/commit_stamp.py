"""The commit a benchmark table was made at, for the table scripts."""
import subprocess


def commit_stamp(paths):
    """The short commit, marked when `paths` differ from it (untracked files count)."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    changes = subprocess.run(["git", "status", "--porcelain", "--", *paths], capture_output=True, text=True).stdout.strip()
    return f"{commit} (with uncommitted changes)" if changes else commit
