"""The shared basics: cards, the deck, seats, prices, errors, actions and their JSON, the
bidding ladder, the deal outcome, conventions and the rule-set registry. Imports no other
package of the engine."""
