import "../../lib/db/node";
