// Hubgraph API docs page script (runs in the browser, after the Swagger UI bundle).
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("api-docs-config").textContent);

  // A cookie session must echo its CSRF token on unsafe requests; GET /api/session returns it (401
  // without a session: then "Try it out" requests go without it, e.g. with a token from Authorize).
  // Read each time: signing in or out (also from this page) changes it.
  function readCsrfToken() {
    return fetch("/api/session", { credentials: "same-origin", headers: { accept: "application/json" } })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .catch(function () {
        return null;
      })
      .then(function (session) {
        return (session && session.csrfToken) || null;
      });
  }

  window.ui = SwaggerUIBundle({
    url: config.url,
    dom_id: "#swagger-ui",
    deepLinking: true,
    // The default sends the document to an online validator for a badge: this page stays on this server.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    requestInterceptor: function (request) {
      var method = (request.method || "GET").toUpperCase();
      var sameOrigin = new URL(request.url, location.href).origin === location.origin;
      if (!sameOrigin || method === "GET" || method === "HEAD" || method === "OPTIONS") return request;
      return readCsrfToken().then(function (token) {
        if (token && !request.headers["X-CSRF-Token"]) request.headers["X-CSRF-Token"] = token;
        return request;
      });
    },
  });
})();
