// Precompiled header of the transport layer: Beast and Asio are the expensive part of every TU.
#pragma once
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
