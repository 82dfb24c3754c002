package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections/logtree"
)

// The verifiable log (projections/logtree) for auditors' tools: the
// service's verifier key at a fixed public path, and under the Backoffice,
// with Giornale degli Eventi R on every entity (the log spans them all),
// the checkpoints and inclusion and consistency proofs. A proof is checked
// with `payauthz audit check-proof` and the verifier key alone.

// PathVerifierKey is where the verifier key of the service's checkpoints
// is served, in plain text, to anyone.
const PathVerifierKey = "/log/verifier-key"

func (s *Server) getVerifierKey(c *echo.Context) error {
	if s.cfg.Log == nil {
		return errNotFound
	}
	return c.String(http.StatusOK, s.cfg.Log.VerifierKey()+"\n")
}

// logAuditor admits a caller with Giornale degli Eventi R on every entity,
// when the service keeps a verifiable log.
func (s *Server) logAuditor(c *echo.Context) error {
	if _, err := gated(c, operations.AuditWholeLog); err != nil {
		return err
	}
	if s.cfg.Log == nil {
		return errNotFound
	}
	return nil
}

// logState is the body of GET /giornale/checkpoint.
type logState struct {
	Signer      string          `json:"firmatario"`
	VerifierKey string          `json:"chiaveVerifica"`
	Size        uint64          `json:"dimensione"`
	Root        []byte          `json:"radice"`
	Position    uint64          `json:"posizione"`
	Diverged    string          `json:"divergenza,omitempty"`
	Checkpoints []logtree.Found `json:"checkpoint"`
}

func (s *Server) getLogCheckpoints(c *echo.Context) error {
	if err := s.logAuditor(c); err != nil {
		return err
	}
	l := s.cfg.Log
	size, root := l.Tree().Root()
	st := logState{Signer: l.Signer(), VerifierKey: l.VerifierKey(), Size: size, Root: root,
		Position: uint64(l.Tree().LastPosition()), Checkpoints: l.Checkpoints()}
	if err := l.Diverged(); err != nil {
		st.Diverged = err.Error()
	}
	return c.JSON(http.StatusOK, st)
}

// checkpointParam is the checkpoint named by its event's position in
// query parameter name (of one value: queryValue), or the latest one (the
// latest that verified, this service's own that the log matches, first).
func (s *Server) checkpointParam(c *echo.Context, name string) (logtree.Found, error) {
	v, err := queryValue(c, name)
	if err != nil {
		return logtree.Found{}, err
	}
	cps := s.cfg.Log.Checkpoints()
	if v == "" {
		for i := len(cps) - 1; i >= 0; i-- {
			if cps[i].Verified {
				return cps[i], nil
			}
		}
		if len(cps) > 0 {
			return cps[len(cps)-1], nil
		}
		return logtree.Found{}, errNotFound
	}
	pos, err := strconv.ParseUint(v, 10, 64)
	if err != nil || pos == 0 {
		return logtree.Found{}, syntaxError(name + " must be the positive log position of a checkpoint")
	}
	for _, cp := range cps {
		if uint64(cp.Position) == pos {
			return cp, nil
		}
	}
	return logtree.Found{}, errNotFound
}

func (s *Server) getInclusionProof(c *echo.Context) error {
	if err := s.logAuditor(c); err != nil {
		return err
	}
	v, err := queryValue(c, "posizione")
	if err != nil {
		return err
	}
	pos, err := strconv.ParseUint(v, 10, 64)
	if err != nil || pos == 0 {
		return syntaxError("posizione must be a positive log position")
	}
	index := uint64(0)
	if v, err = queryValue(c, "indice"); err != nil {
		return err
	}
	if v != "" {
		if index, err = strconv.ParseUint(v, 10, 32); err != nil {
			return syntaxError("indice must be the place of the event in its commit, from 0")
		}
	}
	cp, err := s.checkpointParam(c, "checkpoint")
	if err != nil {
		return err
	}
	p, err := s.cfg.Log.Tree().ProveEvent(c.Request().Context(), events.Position(pos), index, cp.Signed)
	switch {
	case errors.Is(err, logtree.ErrNoSuchEvent):
		return errNotFound
	case errors.Is(err, logtree.ErrNotCovered):
		return syntaxError(logtree.ErrNotCovered.Error())
	case err != nil:
		return proofError(err)
	}
	return c.JSON(http.StatusOK, p)
}

// proofError is a proof's error as answered: a checkpoint that does not
// match the log (another signer's, listed as it claims to be, or one the
// log no longer matches) is a bad checkpoint to name, 400 as one the event
// came after, saying how.
func proofError(err error) error {
	if errors.Is(err, logtree.ErrCheckpointMismatch) {
		return syntaxError(err.Error())
	}
	return err
}

func (s *Server) getConsistencyProof(c *echo.Context) error {
	if err := s.logAuditor(c); err != nil {
		return err
	}
	da, err := queryValue(c, "da")
	if err != nil {
		return err
	}
	if da == "" {
		return syntaxError("da (the older checkpoint's position) is required")
	}
	oldCP, err := s.checkpointParam(c, "da")
	if err != nil {
		return err
	}
	newCP, err := s.checkpointParam(c, "a")
	if err != nil {
		return err
	}
	p, err := s.cfg.Log.Tree().ProveConsistency(c.Request().Context(), oldCP.Signed, newCP.Signed)
	if err != nil {
		return proofError(err)
	}
	return c.JSON(http.StatusOK, p)
}
