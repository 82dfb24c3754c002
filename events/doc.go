// Package events is the event log of payauthz: the catalogue of facts
// (past-tense event types with stable names), the envelope that carries
// them, the JSON codec, and the Store port that every backend implements.
//
// Every registration, grant and ownership fact is an event appended to a
// stream (one stream per aggregate) with an expected version. The whole log
// has a total order given by the global position; projections fold it into
// read models in that order.
package events
