# Writes spark_bloom_filter.parquet: ids 0, 2, ..., 998 and s = "v<id>" in five row groups of
# 100 rows, with parquet-java Bloom filters on both columns. Run with pyspark 3.5:
#   python make_spark_bloom_filter.py OUT_DIR   (then copy OUT_DIR/part-*.parquet here)
import sys

from pyspark.sql import SparkSession

out = sys.argv[1]
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "1").getOrCreate())
df = spark.createDataFrame([(i, "v%d" % i) for i in range(0, 1000, 2)], "id long, s string").coalesce(1)
(df.write.mode("overwrite")
   .option("parquet.bloom.filter.enabled#id", "true")
   .option("parquet.bloom.filter.enabled#s", "true")
   .option("parquet.bloom.filter.expected.ndv#id", "100")
   .option("parquet.bloom.filter.expected.ndv#s", "100")
   .option("parquet.block.size", "1")  # a row group at every size check (each 100 rows)
   .option("compression", "snappy")
   .parquet(out))
spark.stop()
