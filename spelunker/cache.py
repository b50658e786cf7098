"""Django's pymemcache backend, keeping its connections between requests.

Django's memcached backends close every connection when a request finishes
(request_finished → close_caches), so each request of a web process connects
to Memcached again: for a signed-in request, whose session is a Memcached read,
the connect and the close cost about as much as the read (make bench, "Live
progress under load"). Django's own pylibmc backend keeps its connections for
the same reason. A web process serves one request at a time per thread and
Django gives each thread its own cache object, so a kept connection is never
shared; a connection Memcached dropped (a restart) fails once, is reopened by
pymemcache on the next call, and meanwhile reads as a miss (`ignore_exc`).
"""

from django.core.cache.backends.memcached import PyMemcacheCache


class PersistentPyMemcacheCache(PyMemcacheCache):
    def close(self, **kwargs):
        """Keep the connections: the next request of this thread reuses them."""
