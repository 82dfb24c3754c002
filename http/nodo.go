package httpapi

import "github.com/labstack/echo/v5"

// registerNodo mounts the node API (API.md section 9). Its endpoints come
// with the node issue; until then the mount exists so that its accepted
// auth types are enforced like every other API's.
func (s *Server) registerNodo(g *echo.Group) {}
