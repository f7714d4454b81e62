# shellcheck shell=bash
# The balancer of scripts/cluster.sh: its certificate (a throwaway CA made here) and its
# configuration. Sourced by scripts/cluster/lib.sh.

# decisions §12.6: TLS with a certificate for the base domain and `*.{base domain}`. Made with
# openssl on first start and kept in $CLUSTER_DIR/tls: a CA of this folder only (ca.pem, which a
# browser or curl is told to trust) and the wildcard certificate it signed (made again when the base
# domain changes or it expires within a day; the CA stays, so whoever trusts it keeps trusting it).
# A wildcard directly under a one-label name (`*.localhost`) is refused by browsers and by Node, so
# the base domain has two labels: platform.localhost (curl and browsers send every name under
# .localhost to loopback by themselves).
tls_init() {
  local dir="$CLUSTER_DIR/tls"
  mkdir -p "$dir"
  chmod 700 "$dir"
  if [ ! -s "$dir/ca.pem" ] || [ ! -s "$dir/ca.key" ]; then
    openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -sha256 -days 3650 \
      -subj "/O=Platform cluster (scripts-cluster.sh)/CN=Platform cluster throwaway CA" \
      -addext "basicConstraints=critical,CA:TRUE,pathlen:0" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null || die "openssl could not make the cluster's CA"
    rm -f "$dir/server.pem"
    log "made a throwaway CA: $dir/ca.pem"
  fi
  if [ -s "$dir/server.pem" ] && [ "$(cat "$dir/domain" 2>/dev/null)" = "$BASE_DOMAIN" ] &&
    openssl x509 -checkend 86400 -noout -in "$dir/server.pem" >/dev/null 2>&1; then
    return 0
  fi
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -subj "/CN=$BASE_DOMAIN" \
    -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null || die "openssl could not make a key"
  printf '%s\n' "subjectAltName=DNS:$BASE_DOMAIN,DNS:*.$BASE_DOMAIN" "basicConstraints=critical,CA:FALSE" \
    "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >"$dir/server.ext"
  openssl x509 -req -sha256 -days 397 -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
    -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null || die "openssl could not sign the certificate"
  # HAProxy reads the certificate and its key from one file.
  cat "$dir/server.pem" "$dir/server.key" >"$dir/haproxy.pem"
  chmod 600 "$dir"/*.key "$dir/haproxy.pem"
  echo "$BASE_DOMAIN" >"$dir/domain"
  log "made a certificate for $BASE_DOMAIN and *.$BASE_DOMAIN"
}

# Every replica is checked on /readyz. When every one of them is down (PostgreSQL stopped: each
# answers 503), the backup lines, the same processes without a check, still receive the requests,
# so clients get the API's own 503 with Retry-After, traceId and {"errors"} instead of HAProxy's page.
# http-server-close: no idle kept-alive connection to a replica that may be draining; a refused
# connection (a replica stopped or stopping) is retried on another one (retries, redispatch).
# decisions §12.6: TLS on HTTPS_PORT; plain HTTP to the base domain or a store host is answered 308
# to the same path over HTTPS (other hosts, an IP address for one, stay plain: health checks and
# local tools); X-Forwarded-For/-Proto/-Host are set from what HAProxy saw (a client's own are
# replaced, `Forwarded` dropped), and it connects to the replicas from LB_SOURCE, the one address
# they believe them from. The statistics page is on loopback and needs a password.
# deploy/haproxy.cfg has the same rules (the cluster suite compares them).
haproxy_config() {
  local n
  {
    cat <<EOF
global
  maxconn 4096
  pidfile $CLUSTER_DIR/haproxy.pid
  ssl-default-bind-options ssl-min-ver TLSv1.2

defaults
  mode http
  option http-server-close
  timeout connect 1s
  timeout client 60s
  timeout server 35s
  retries 3
  option redispatch 1

frontend api
  bind 127.0.0.1:$LB_PORT
  bind 127.0.0.1:$HTTPS_PORT ssl crt $CLUSTER_DIR/tls/haproxy.pem alpn h2,http/1.1
  acl platform_host req.hdr(host),field(1,:),lower -m str "$BASE_DOMAIN"
  acl platform_host req.hdr(host),field(1,:),lower -m end ".$BASE_DOMAIN"
  http-request redirect location https://%[req.hdr(host),field(1,:),lower]:$HTTPS_PORT%[pathq] code 308 if !{ ssl_fc } platform_host
  http-request del-header Forwarded
  http-request set-header X-Forwarded-For %[src]
  http-request set-header X-Forwarded-Proto https if { ssl_fc }
  http-request set-header X-Forwarded-Proto http unless { ssl_fc }
  http-request set-header X-Forwarded-Host %[req.hdr(host)] if { req.hdr(host) -m found }
  http-request del-header X-Forwarded-Host unless { req.hdr(host) -m found }
  default_backend replicas

listen stats
  bind 127.0.0.1:$STATS_PORT
  stats enable
  stats uri /stats
  stats refresh 1s
  stats auth $STATS_USER:$STATS_PASSWORD

backend replicas
  balance roundrobin
  source $LB_SOURCE
  option allbackups
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 500ms fastinter 250ms fall 2 rise 2
  http-response set-header X-Served-By %s
EOF
    for ((n = 1; n <= APIS; n++)); do echo "  server api$n 127.0.0.1:$(api_port "$n") check"; done
    for ((n = 1; n <= APIS; n++)); do echo "  server api$n-unchecked 127.0.0.1:$(api_port "$n") backup"; done
  } >"$CLUSTER_DIR/haproxy.cfg"
  chmod 600 "$CLUSTER_DIR/haproxy.cfg"
}

haproxy_start() {
  tls_init
  haproxy_config
  haproxy -f "$CLUSTER_DIR/haproxy.cfg" -D -q || die "HAProxy did not start (config: $CLUSTER_DIR/haproxy.cfg)"
}

# HAProxy's view of a server (UP, DOWN, MAINT, ...), from the statistics page's CSV.
haproxy_server_status() {
  curl -fsS --max-time 2 -u "$STATS_USER:$STATS_PASSWORD" "http://127.0.0.1:$STATS_PORT/stats;csv" 2>/dev/null |
    awk -F, -v s="$1" '$1 == "replicas" && $2 == s { print $18 }'
}

# Waits until HAProxy routes to replica N again (its checks passed), at most 30 seconds.
haproxy_wait_up() {
  local i
  for ((i = 0; i < 300; i++)); do
    [ "$(haproxy_server_status "api$1")" = UP ] && return 0
    sleep 0.1
  done
  die "HAProxy did not take API replica $1 back within 30 s"
}
