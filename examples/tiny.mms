# mpimatch stream v1
# np=4
# tiny.mms: each matching rule once. '->' gives the outcome line that
# 'mpimatch-replay --matches' writes for the event below it.
# A receive with nothing to match is queued (posted-receive queue, PRQ).  -> (queued)
R 1 0 2 5
# A message on another communicator never matches it: queued as unexpected (UMQ).  -> (queued)
M 2 1 2 5 bytes=64
# A message matching the receive takes it.  -> 1 3
M 3 0 2 5 bytes=64
# ANY_SOURCE: a receive takes the earliest-arrived matching message, 2.  -> 4 2
R 4 1 * 5
# Two messages from rank 3 queue: tag 7, then tag -1 (negative: library-internal).  -> (queued)
M 5 0 3 7
M 6 0 3 -1
# A probe with ANY_TAG reports message 5 and leaves it queued.  -> P 7 5
P 7 0 3 *
# A receive with ANY_TAG takes message 5.  -> 8 5
R 8 0 3 *
# ANY_TAG never matches a negative tag: this receive is queued although 6 waits.  -> (queued)
R 9 0 * *
# A matched probe for tag -1 removes message 6.  -> X 10 6
X 10 0 3 -1
# A probe for tag -1 now finds nothing.  -> P 11 -
P 11 0 3 -1
# A second receive that also matches rank 1, tag 4 ...  -> (queued)
R 12 0 1 4
# ... but a message takes the earliest-posted matching receive: 9 (wildcards) wins over 12.  -> 9 13
M 13 0 1 4
# Cancel receive 12 while it is still queued.  -> C 12 ok
C 12
# Cancel receive 1, which was matched long ago: too late.  -> C 1 miss
C 1
# Non-overtaking: two messages from rank 0 with tag 2 ...  -> (queued)
M 14 2 0 2
M 15 2 0 2
# ... are received in the order they arrived.  -> 16 14
R 16 2 0 2
#  -> 17 15
R 17 2 0 2
