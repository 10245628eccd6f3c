//! STOP: the rule that ends the loop.
