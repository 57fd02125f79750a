"""Model builders (thinc architectures). torch is imported only inside them."""
