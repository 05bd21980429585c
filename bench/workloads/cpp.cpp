/* SPDX-License-Identifier: MIT */
// C++ workload: many small methods, templates, virtual calls and STL
// containers and algorithms.  Each step parses generated arithmetic
// expressions into a tree of polymorphic nodes, evaluates them over a
// set of particles (templated vectors), sorts and bins the particles and
// counts results in a std::map.  Deterministic: fixed seeds, no clocks.
//
//   cpp [STEPS]      (default 60)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

// ---- small templated value types ----------------------------------------

template <typename T> struct Vec3 {
   T x, y, z;
   Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
   Vec3 operator*(T s) const { return {x * s, y * s, z * s}; }
   T dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
};

class Rng {
 public:
   explicit Rng(unsigned long seed) : s_(seed) {}
   unsigned long next()
   {
      s_ ^= s_ << 13;
      s_ ^= s_ >> 7;
      s_ ^= s_ << 17;
      return s_;
   }
   double unit() { return (double)(next() % 1000000) / 1000000.0; }

 private:
   unsigned long s_;
};

// ---- expression trees: one virtual eval per node ------------------------

using Env = std::unordered_map<std::string, double>;

struct Node {
   virtual ~Node() = default;
   virtual double eval(const Env &env) const = 0;
   virtual int size() const = 0;
};

struct Num : Node {
   double v;
   explicit Num(double x) : v(x) {}
   double eval(const Env &) const override { return v; }
   int size() const override { return 1; }
};

struct Var : Node {
   std::string name;
   explicit Var(std::string n) : name(std::move(n)) {}
   double eval(const Env &env) const override
   {
      auto it = env.find(name);
      return it == env.end() ? 0.0 : it->second;
   }
   int size() const override { return 1; }
};

template <typename Op> struct Bin : Node {
   std::unique_ptr<Node> l, r;
   Bin(std::unique_ptr<Node> a, std::unique_ptr<Node> b)
      : l(std::move(a)), r(std::move(b)) {}
   double eval(const Env &env) const override
   {
      return Op::apply(l->eval(env), r->eval(env));
   }
   int size() const override { return 1 + l->size() + r->size(); }
};

struct Add { static double apply(double a, double b) { return a + b; } };
struct Sub { static double apply(double a, double b) { return a - b; } };
struct Mul { static double apply(double a, double b) { return a * b; } };
struct Div {
   static double apply(double a, double b) { return b == 0 ? a : a / b; }
};

// Recursive-descent parser of + - * / ( ) numbers and names.
class Parser {
 public:
   explicit Parser(const std::string &s) : s_(s), i_(0) {}
   std::unique_ptr<Node> parse() { return expr(); }

 private:
   char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
   std::unique_ptr<Node> expr()
   {
      auto l = term();
      while (peek() == '+' || peek() == '-') {
         char op = s_[i_++];
         auto r = term();
         if (op == '+') l = std::make_unique<Bin<Add>>(std::move(l), std::move(r));
         else l = std::make_unique<Bin<Sub>>(std::move(l), std::move(r));
      }
      return l;
   }
   std::unique_ptr<Node> term()
   {
      auto l = atom();
      while (peek() == '*' || peek() == '/') {
         char op = s_[i_++];
         auto r = atom();
         if (op == '*') l = std::make_unique<Bin<Mul>>(std::move(l), std::move(r));
         else l = std::make_unique<Bin<Div>>(std::move(l), std::move(r));
      }
      return l;
   }
   std::unique_ptr<Node> atom()
   {
      if (peek() == '(') {
         i_++;
         auto e = expr();
         i_++;   // ')'
         return e;
      }
      size_t start = i_;
      if (std::isdigit((unsigned char)peek())) {
         while (std::isdigit((unsigned char)peek()) || peek() == '.') i_++;
         return std::make_unique<Num>(std::stod(s_.substr(start, i_ - start)));
      }
      while (std::isalpha((unsigned char)peek())) i_++;
      return std::make_unique<Var>(s_.substr(start, i_ - start));
   }
   const std::string &s_;
   size_t i_;
};

std::string gen_expr(Rng &rng, int depth)
{
   static const char *vars[] = {"x", "y", "z", "m", "t"};
   static const char ops[] = "+-*/";
   if (depth == 0 || rng.next() % 4 == 0) {
      if (rng.next() % 2) return vars[rng.next() % 5];
      return std::to_string(1 + rng.next() % 9);
   }
   std::string l = gen_expr(rng, depth - 1), r = gen_expr(rng, depth - 1);
   return "(" + l + ops[rng.next() % 4] + r + ")";
}

// ---- particles ------------------------------------------------------------

struct Particle {
   Vec3<double> pos, vel;
   double mass;
   double energy() const { return 0.5 * mass * vel.dot(vel); }
};

template <typename T, typename Key>
void sort_by(std::vector<T> &v, Key key)
{
   std::sort(v.begin(), v.end(),
             [&](const T &a, const T &b) { return key(a) < key(b); });
}

class Simulation {
 public:
   explicit Simulation(int n) : rng_(42)
   {
      for (int i = 0; i < n; i++)
         parts_.push_back({{rng_.unit(), rng_.unit(), rng_.unit()},
                           {rng_.unit() - 0.5, rng_.unit() - 0.5, 0.0},
                           1.0 + rng_.unit()});
   }

   // One step: a new force expression, applied to every particle.
   double step(int k)
   {
      std::string text = gen_expr(rng_, 5);
      std::unique_ptr<Node> force = Parser(text).parse();
      Env env;
      env["t"] = k;
      double total = 0;
      for (Particle &p : parts_) {
         env["x"] = p.pos.x;
         env["y"] = p.pos.y;
         env["z"] = p.pos.z;
         env["m"] = p.mass;
         double f = std::tanh(force->eval(env));
         p.vel = p.vel + Vec3<double>{f, -f, 0.1 * f} * 0.01;
         p.pos = p.pos + p.vel * 0.01;
         total += p.energy();
      }
      sort_by(parts_, [](const Particle &p) { return p.energy(); });
      for (size_t i = 0; i < parts_.size(); i += 7)
         hist_[(int)(parts_[i].energy() * 100)]++;
      nodes_ += force->size();
      return total;
   }

   size_t bins() const { return hist_.size(); }
   long nodes() const { return nodes_; }

 private:
   Rng rng_;
   std::vector<Particle> parts_;
   std::map<int, long> hist_;
   long nodes_ = 0;
};

}  // namespace

int main(int argc, char **argv)
{
   int steps = argc > 1 ? std::atoi(argv[1]) : 60;
   Simulation sim(2000);
   double e = 0;
   for (int k = 0; k < steps; k++)
      e += sim.step(k);
   std::printf("energy %.6f bins %zu nodes %ld\n", e, sim.bins(), sim.nodes());
   return 0;
}
