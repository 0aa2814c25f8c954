def bare_except_pass_at_end(values, text):
    try:
        values.append(int(text))
    except:
        pass
