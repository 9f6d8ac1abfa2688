"""HTTP and websocket routers."""
