"""Everything the tests share, in one place (issue 29): databases (``databases``), engine deals
built by hand (``engine``, ``scoring``), apps served in process (``live_app``) and real servers
(``server``, ``live_servers``, ``practice``), bot deals (``bot_deals``), sockets, browsers,
metrics and the other helpers; the test folders hold only tests and their conftests."""
