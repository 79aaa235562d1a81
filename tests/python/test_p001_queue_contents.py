"""scripts/p001_queue_contents.py: the per-queue walk of the p001-fig3 stream agrees
with the engines' counters (mean UMQ depth of list and of the kmeans runs, as the
bench reports them) and shows four queues comparing fewest."""
from __future__ import annotations


from conftest import load_script



def load():
    return load_script("p001_queue_contents")


def test_walk_small(replay_exe):
    m = load()
    evs = m.events(2, "sequential")
    means = {}
    for name, queues in m.CLUSTERINGS:
        first, compared, searches = m.walk(evs, 2, queues)
        assert sum(first) == 2 * (2 + 10 + 50 + 100)           # every message queued first
        means[name] = sum(sum(c.values()) for c in compared) / sum(searches)
    # a receive takes the last message of its queue: one queue of N costs (N+1)/2 per search
    assert means["one queue"] == (2 * 162 + 1) / 2
    assert means["4 queues"] < min(means["clustering 3"], means["clustering 4"])
    assert means["clustering 5"] > means["clustering 4"]
    first, compared, _ = m.walk(evs, 2, ("Ps Pm Pl", "Pvl"))
    assert first == [2 * 62, 2 * 100] and set(compared[1]) == {"Pvl"}


def test_table_is_what_the_script_prints(replay_exe):
    m = load()
    text = m.table(2, "sequential")
    assert text.startswith("reverse_groups:per_group=2,arrival=sequential: ")
    assert "| 4 queues | all | 324 |" in text
