#include "kdecl/tuning/tuning_db.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

namespace kdecl::tuning {

namespace {

constexpr const char* schema = R"sql(
CREATE TABLE IF NOT EXISTS measurements(
  device_name TEXT NOT NULL, arch TEXT NOT NULL, sm_count INTEGER, sm_clock_mhz INTEGER,
  memory_clock_mhz INTEGER, driver_version TEXT, cuda_version TEXT, kdecl_commit TEXT,
  op TEXT NOT NULL, problem_key TEXT NOT NULL, kernel TEXT NOT NULL, kernel_set TEXT,
  median_ms REAL, spread REAL, samples INTEGER, error TEXT, measured_at TEXT,
  confirmed_rounds INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(device_name, problem_key, kernel));
CREATE TABLE IF NOT EXISTS problem_sources(
  problem_key TEXT NOT NULL, model TEXT NOT NULL, layer TEXT NOT NULL, source TEXT,
  PRIMARY KEY(problem_key, model, layer));
CREATE TABLE IF NOT EXISTS kernel_sets(
  fingerprint TEXT PRIMARY KEY, arch TEXT NOT NULL, kernels TEXT NOT NULL);
)sql";

std::string column_text(sqlite3_stmt* st, int i) {
  auto p = sqlite3_column_text(st, i);
  return p ? reinterpret_cast<const char*>(p) : "";
}

// The columns measurement_of() reads, in its order; the last is "confirmed_rounds", or "0"
// for a read-only database written before that column existed.
std::string measurement_columns(bool has_confirmed_column) {
  return std::string("device_name, arch, sm_count, sm_clock_mhz, memory_clock_mhz, driver_version, cuda_version, "
                     "kdecl_commit, op, problem_key, kernel, kernel_set, median_ms, spread, samples, error, "
                     "measured_at, ") +
         (has_confirmed_column ? "confirmed_rounds" : "0");
}

measurement measurement_of(sqlite3_stmt* st) {
  measurement m;
  auto& h = m.machine;
  h.device_name = column_text(st, 0);
  h.arch = column_text(st, 1);
  h.sm_count = sqlite3_column_int(st, 2);
  h.sm_clock_mhz = sqlite3_column_int(st, 3);
  h.memory_clock_mhz = sqlite3_column_int(st, 4);
  h.driver_version = column_text(st, 5);
  h.cuda_version = column_text(st, 6);
  h.kdecl_commit = column_text(st, 7);
  m.op = column_text(st, 8);
  m.problem_key = column_text(st, 9);
  m.kernel = column_text(st, 10);
  m.kernel_set = column_text(st, 11);
  if (sqlite3_column_type(st, 12) != SQLITE_NULL) m.median_ms = sqlite3_column_double(st, 12);
  m.spread = sqlite3_column_double(st, 13);
  m.samples = sqlite3_column_int(st, 14);
  m.error = column_text(st, 15);
  m.measured_at = column_text(st, 16);
  m.confirmed_rounds = sqlite3_column_int(st, 17);
  return m;
}

}  // namespace

struct tuning_db::impl {
  sqlite3* db = nullptr;
  std::string path;
  bool has_confirmed_column = true;

  void check(int rc, const char* what) const {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
      throw std::runtime_error(fmt::format("tuning database '{}': {}: {}", path, what, sqlite3_errmsg(db)));
  }
  void exec(const char* sql) const {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "error";
      sqlite3_free(err);
      throw std::runtime_error(fmt::format("tuning database '{}': {}", path, msg));
    }
  }
  // A prepared statement, finalized on scope exit.
  struct statement {
    sqlite3_stmt* st = nullptr;
    ~statement() { sqlite3_finalize(st); }
  };
  statement prepare(const char* sql) const {
    statement s;
    check(sqlite3_prepare_v2(db, sql, -1, &s.st, nullptr), sql);
    return s;
  }
};

tuning_db::tuning_db(const std::string& path, bool read_only) : path_(path), impl_(std::make_unique<impl>()) {
  impl_->path = path;
  int flags = read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(path.c_str(), &impl_->db, flags, nullptr) != SQLITE_OK) {
    std::string msg = impl_->db ? sqlite3_errmsg(impl_->db) : "out of memory";
    sqlite3_close(impl_->db);
    impl_->db = nullptr;
    throw std::runtime_error(fmt::format("tuning database '{}' cannot be opened: {}", path, msg));
  }
  sqlite3_busy_timeout(impl_->db, 5000);
  if (!read_only) {
    // WAL: each committed row is durable without a full fsync of the file per row.
    impl_->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
    impl_->exec(schema);
  } else {
    // Fails clearly on a file that is not a tuning database.
    auto s = impl_->prepare("SELECT count(*) FROM measurements");
    impl_->check(sqlite3_step(s.st), "reading measurements");
  }
  // Databases written before `tune --confirm` existed lack its column: added when the file
  // is writable, read as 0 otherwise.
  bool found = false;
  {
    auto s = impl_->prepare("SELECT name FROM pragma_table_info('measurements')");
    int rc;
    while ((rc = sqlite3_step(s.st)) == SQLITE_ROW) found = found || column_text(s.st, 0) == "confirmed_rounds";
    impl_->check(rc, "reading the measurements' columns");
  }
  if (!found && !read_only) impl_->exec("ALTER TABLE measurements ADD COLUMN confirmed_rounds INTEGER NOT NULL DEFAULT 0");
  impl_->has_confirmed_column = found || !read_only;
}

tuning_db::~tuning_db() {
  if (impl_ && impl_->db) sqlite3_close(impl_->db);
}

bool tuning_db::has(const std::string& device_name, const std::string& problem_key, const std::string& kernel) const {
  auto s = impl_->prepare("SELECT 1 FROM measurements WHERE device_name=?1 AND problem_key=?2 AND kernel=?3");
  sqlite3_bind_text(s.st, 1, device_name.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.st, 2, problem_key.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.st, 3, kernel.c_str(), -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(s.st);
  impl_->check(rc, "lookup");
  return rc == SQLITE_ROW;
}

bool tuning_db::add(const measurement& m) {
  auto s = impl_->prepare(
      "INSERT OR IGNORE INTO measurements(device_name, arch, sm_count, sm_clock_mhz, memory_clock_mhz, "
      "driver_version, cuda_version, kdecl_commit, op, problem_key, kernel, kernel_set, median_ms, spread, samples, "
      "error, measured_at, confirmed_rounds) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)");
  auto text = [&](int i, const std::string& v) { sqlite3_bind_text(s.st, i, v.c_str(), -1, SQLITE_TRANSIENT); };
  const auto& h = m.machine;
  text(1, h.device_name);
  text(2, h.arch);
  sqlite3_bind_int(s.st, 3, h.sm_count);
  sqlite3_bind_int(s.st, 4, h.sm_clock_mhz);
  sqlite3_bind_int(s.st, 5, h.memory_clock_mhz);
  text(6, h.driver_version);
  text(7, h.cuda_version);
  text(8, h.kdecl_commit);
  text(9, m.op);
  text(10, m.problem_key);
  text(11, m.kernel);
  text(12, m.kernel_set);
  if (m.median_ms) sqlite3_bind_double(s.st, 13, *m.median_ms);
  else sqlite3_bind_null(s.st, 13);
  sqlite3_bind_double(s.st, 14, m.spread);
  sqlite3_bind_int(s.st, 15, m.samples);
  if (m.error.empty()) sqlite3_bind_null(s.st, 16);
  else text(16, m.error);
  text(17, m.measured_at.empty() ? utc_now() : m.measured_at);
  sqlite3_bind_int(s.st, 18, std::max(0, m.confirmed_rounds));
  impl_->check(sqlite3_step(s.st), "insert");
  return sqlite3_changes(impl_->db) > 0;
}

bool tuning_db::confirm(const measurement& m) {
  if (m.confirmed_rounds <= 0 || !m.median_ms)
    throw std::invalid_argument(fmt::format("confirm: the row of {} on {} holds no confirmed timing "
                                            "(confirmed_rounds {}, a median is required)",
                                            m.kernel, m.problem_key, m.confirmed_rounds));
  auto s = impl_->prepare(
      "UPDATE measurements SET median_ms=?4, spread=?5, samples=?6, measured_at=?7, kdecl_commit=?8, "
      "confirmed_rounds=?9, error=NULL WHERE device_name=?1 AND problem_key=?2 AND kernel=?3 AND confirmed_rounds < ?9");
  auto text = [&](int i, const std::string& v) { sqlite3_bind_text(s.st, i, v.c_str(), -1, SQLITE_TRANSIENT); };
  text(1, m.machine.device_name);
  text(2, m.problem_key);
  text(3, m.kernel);
  sqlite3_bind_double(s.st, 4, *m.median_ms);
  sqlite3_bind_double(s.st, 5, m.spread);
  sqlite3_bind_int(s.st, 6, m.samples);
  text(7, m.measured_at.empty() ? utc_now() : m.measured_at);
  text(8, m.machine.kdecl_commit);
  sqlite3_bind_int(s.st, 9, m.confirmed_rounds);
  impl_->check(sqlite3_step(s.st), "confirm");
  return sqlite3_changes(impl_->db) > 0;
}

std::vector<measurement> tuning_db::rows_of(const std::string& device_name, const std::string& problem_key) const {
  const std::string sql = fmt::format("SELECT {} FROM measurements WHERE device_name=?1 AND problem_key=?2 ORDER BY kernel",
                                      measurement_columns(impl_->has_confirmed_column));
  auto s = impl_->prepare(sql.c_str());
  sqlite3_bind_text(s.st, 1, device_name.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.st, 2, problem_key.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<measurement> out;
  int rc;
  while ((rc = sqlite3_step(s.st)) == SQLITE_ROW) out.push_back(measurement_of(s.st));
  impl_->check(rc, "reading a problem's measurements");
  return out;
}

void tuning_db::add_source(const problem_source& src) {
  auto s = impl_->prepare("INSERT OR IGNORE INTO problem_sources(problem_key, model, layer, source) VALUES(?1,?2,?3,?4)");
  sqlite3_bind_text(s.st, 1, src.problem_key.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.st, 2, src.model.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.st, 3, src.layer.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.st, 4, src.source.c_str(), -1, SQLITE_TRANSIENT);
  impl_->check(sqlite3_step(s.st), "insert source");
}

void tuning_db::add_kernel_set(const kernel_set& ks) {
  std::string joined;
  for (const auto& k : ks.kernels) joined += (joined.empty() ? "" : "\n") + k;
  auto s = impl_->prepare("INSERT OR IGNORE INTO kernel_sets(fingerprint, arch, kernels) VALUES(?1,?2,?3)");
  sqlite3_bind_text(s.st, 1, ks.fingerprint.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.st, 2, ks.arch.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s.st, 3, joined.c_str(), -1, SQLITE_TRANSIENT);
  impl_->check(sqlite3_step(s.st), "insert kernel set");
}

std::vector<measurement> tuning_db::measurements(const std::string& arch) const {
  const std::string sql = fmt::format(
      "SELECT {} FROM measurements WHERE ?1 = '' OR arch = ?1 ORDER BY problem_key, kernel, device_name",
      measurement_columns(impl_->has_confirmed_column));
  auto s = impl_->prepare(sql.c_str());
  sqlite3_bind_text(s.st, 1, arch.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<measurement> out;
  int rc;
  while ((rc = sqlite3_step(s.st)) == SQLITE_ROW) out.push_back(measurement_of(s.st));
  impl_->check(rc, "reading measurements");
  return out;
}

std::vector<problem_source> tuning_db::sources() const {
  auto s = impl_->prepare("SELECT problem_key, model, layer, source FROM problem_sources ORDER BY problem_key, model, layer");
  std::vector<problem_source> out;
  int rc;
  while ((rc = sqlite3_step(s.st)) == SQLITE_ROW)
    out.push_back({column_text(s.st, 0), column_text(s.st, 1), column_text(s.st, 2), column_text(s.st, 3)});
  impl_->check(rc, "reading sources");
  return out;
}

std::vector<kernel_set> tuning_db::kernel_sets() const {
  auto s = impl_->prepare("SELECT fingerprint, arch, kernels FROM kernel_sets ORDER BY fingerprint");
  std::vector<kernel_set> out;
  int rc;
  while ((rc = sqlite3_step(s.st)) == SQLITE_ROW) {
    kernel_set ks{column_text(s.st, 0), column_text(s.st, 1), {}};
    std::string all = column_text(s.st, 2), cur;
    for (char c : all) {
      if (c == '\n') { ks.kernels.push_back(cur); cur.clear(); }
      else cur += c;
    }
    if (!cur.empty()) ks.kernels.push_back(cur);
    out.push_back(std::move(ks));
  }
  impl_->check(rc, "reading kernel sets");
  return out;
}

std::size_t tuning_db::size() const {
  auto s = impl_->prepare("SELECT count(*) FROM measurements");
  impl_->check(sqlite3_step(s.st), "count");
  return std::size_t(sqlite3_column_int64(s.st, 0));
}

std::size_t tuning_db::export_jsonl(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("export: '{}' cannot be written", path));
  std::size_t n = 0;
  for (const auto& ks : kernel_sets()) {
    out << nlohmann::json{{"kind", "kernel_set"}, {"fingerprint", ks.fingerprint}, {"arch", ks.arch},
                          {"kernels", ks.kernels}}.dump() << "\n";
    ++n;
  }
  for (const auto& s : sources()) {
    out << nlohmann::json{{"kind", "source"}, {"problem_key", s.problem_key}, {"model", s.model},
                          {"layer", s.layer}, {"source", s.source}}.dump() << "\n";
    ++n;
  }
  for (const auto& m : measurements()) {
    const auto& h = m.machine;
    nlohmann::json j{{"kind", "measurement"}, {"device_name", h.device_name}, {"arch", h.arch},
                     {"sm_count", h.sm_count}, {"sm_clock_mhz", h.sm_clock_mhz},
                     {"memory_clock_mhz", h.memory_clock_mhz}, {"driver_version", h.driver_version},
                     {"cuda_version", h.cuda_version}, {"kdecl_commit", h.kdecl_commit}, {"op", m.op},
                     {"problem_key", m.problem_key}, {"kernel", m.kernel}, {"kernel_set", m.kernel_set},
                     {"median_ms", m.median_ms ? nlohmann::json(*m.median_ms) : nlohmann::json()},
                     {"spread", m.spread}, {"samples", m.samples}, {"error", m.error},
                     {"measured_at", m.measured_at}, {"confirmed_rounds", m.confirmed_rounds}};
    out << j.dump() << "\n";
    ++n;
  }
  if (!out) throw std::runtime_error(fmt::format("export: writing '{}' failed", path));
  return n;
}

std::size_t tuning_db::import_jsonl(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("import: '{}' cannot be opened", path));
  std::string line;
  int line_no = 0;
  std::size_t added = 0;
  impl_->exec("BEGIN");
  try {
    while (std::getline(in, line)) {
      ++line_no;
      if (line.empty()) continue;
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line);
        const std::string kind = j.at("kind");
        if (kind == "kernel_set") {
          add_kernel_set({j.at("fingerprint"), j.at("arch"), j.at("kernels").get<std::vector<std::string>>()});
        } else if (kind == "source") {
          add_source({j.at("problem_key"), j.at("model"), j.at("layer"), j.value("source", "")});
        } else if (kind == "measurement") {
          measurement m;
          auto& h = m.machine;
          h.device_name = j.at("device_name");
          h.arch = j.at("arch");
          h.sm_count = j.value("sm_count", 0);
          h.sm_clock_mhz = j.value("sm_clock_mhz", 0);
          h.memory_clock_mhz = j.value("memory_clock_mhz", 0);
          h.driver_version = j.value("driver_version", "");
          h.cuda_version = j.value("cuda_version", "");
          h.kdecl_commit = j.value("kdecl_commit", "");
          m.op = j.value("op", "gemm");
          m.problem_key = j.at("problem_key");
          m.kernel = j.at("kernel");
          m.kernel_set = j.value("kernel_set", "");
          if (j.contains("median_ms") && !j["median_ms"].is_null()) m.median_ms = j["median_ms"].get<double>();
          m.spread = j.value("spread", 0.0);
          m.samples = j.value("samples", 0);
          m.error = j.value("error", "");
          m.measured_at = j.value("measured_at", "");
          m.confirmed_rounds = j.value("confirmed_rounds", 0);
          if (!m.median_ms && m.error.empty()) throw std::invalid_argument("a measurement needs median_ms or error");
          if (m.confirmed_rounds < 0)
            throw std::invalid_argument(fmt::format("confirmed_rounds {} is negative", m.confirmed_rounds));
          if (m.confirmed_rounds > 0 && !m.median_ms)
            throw std::invalid_argument("a confirmed measurement needs median_ms");
          if (add(m) || (m.confirmed_rounds > 0 && confirm(m))) ++added;
        } else {
          throw std::invalid_argument(fmt::format("kind '{}' is not measurement, source or kernel_set", kind));
        }
      } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(fmt::format("import: {}:{}: {}", path, line_no, e.what()));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("import: {}:{}: {}", path, line_no, e.what()));
      }
    }
    impl_->exec("COMMIT");
  } catch (...) {
    impl_->exec("ROLLBACK");
    throw;
  }
  return added;
}

std::string fingerprint_of(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::uint64_t h = 1469598103934665603ull;
  for (const auto& n : names) {
    for (unsigned char c : n) { h ^= c; h *= 1099511628211ull; }
    h ^= '\n';
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace kdecl::tuning
